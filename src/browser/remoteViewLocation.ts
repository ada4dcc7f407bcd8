/**
 * Whether this page is the relay's remote view, and of which machine: `switchboard relay` serves
 * the renderer at `/m/<machineId>/` (src/node/relay/server/remoteViewPages.ts) and viewers talk to
 * `/ws/ui` on the same origin. Also this tab's viewer channel, kept for the tab's lifetime so a
 * reload gets back the terminals it opened.
 */

export interface RemoteViewTarget {
  machineId: string;
  /** `ws(s)://<host>/ws/ui` (without the query). */
  socketUrl: string;
  /** The page itself (`…/m/<machineId>/`): fetched to tell "signed out" from "unreachable". */
  pageUrl: string;
  /** `?name=` of the page, passed on: how the machine's UI names this viewer ("phone"…). */
  viewerName: string | undefined;
}

/** Same rule as the relay's machine ids (src/node/relay/relayUrl.ts). */
const machineIdPattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

type PageLocation = Pick<Location, 'protocol' | 'host' | 'pathname' | 'search' | 'origin'>;

export function remoteViewTarget(at: PageLocation | undefined = typeof location === 'undefined' ? undefined : location): RemoteViewTarget | undefined {
  if (!at || (at.protocol !== 'http:' && at.protocol !== 'https:')) return undefined;
  const match = /^\/m\/([^/]+)\//.exec(at.pathname);
  if (!match) return undefined;
  let machineId: string;
  try {
    machineId = decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
  if (!machineIdPattern.test(machineId)) return undefined;
  const name = new URLSearchParams(at.search).get('name')?.trim();
  return {
    machineId,
    socketUrl: `${at.protocol === 'https:' ? 'wss:' : 'ws:'}//${at.host}/ws/ui`,
    pageUrl: `${at.origin}/m/${encodeURIComponent(machineId)}/`,
    viewerName: name ? name.slice(0, 64) : undefined,
  };
}

/** The storage a relay client keeps per-tab state in (sessionStorage in a browser; absent in tests). */
export type TabStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export function tabStorage(): TabStorage | undefined {
  try {
    return typeof sessionStorage === 'undefined' ? undefined : sessionStorage;
  } catch {
    return undefined; // storage disabled by the browser
  }
}

const channelIdPattern = /^[A-Za-z0-9_.:-]{1,128}$/;

/** A fresh viewer channel id: `ui-` + 12 random hex digits. */
export function newChannelId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `ui-${[...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** This tab's channel on the relay for `machineId`: the same across reloads of the tab. */
export function tabChannelId(storage: TabStorage | undefined, machineId: string): string {
  const key = `switchboard.remote.${machineId}.channel`;
  const stored = storage?.getItem(key);
  if (stored && channelIdPattern.test(stored)) return stored;
  const fresh = newChannelId();
  storage?.setItem(key, fresh);
  return fresh;
}

/** Forget this tab's channel (another tab took it over): the next connection starts a new one. */
export function renewTabChannelId(storage: TabStorage | undefined, machineId: string): string {
  const fresh = newChannelId();
  storage?.setItem(`switchboard.remote.${machineId}.channel`, fresh);
  return fresh;
}
