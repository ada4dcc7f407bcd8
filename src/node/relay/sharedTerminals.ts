/**
 * The app's own panes as the relay's "agent terminals": which ones are shared (a per-terminal flag,
 * else the share-all option), and their announcements to every viewer of the machine
 * (`channelId: "*"`):
 * - `agentTerminalStarted` when a terminal becomes visible (shared, or the link came up), and again
 *   when its title, cwd or command preview change (viewers treat it as an upsert: the protocol's
 *   `agentTerminalUpdated` has no fields for those);
 * - `agentTerminalUpdated` when its status changes (at most every `announceThrottleMs`): the
 *   terminal's, or the state of the agent CLI running in it — `readiness` says what the agent is
 *   doing and the `agent` extension field carries its whole state (see docs/relay.md);
 * - `terminalExit` when it stops being visible (unshared: `closed_by_user`; closed: `process_exit`);
 * - its dev servers (ServerMonitor's `servers` whose process is the pane's own, the ones a preview
 *   may open) as `ports` / `urls` of those frames, readiness `{state: 'ready', source: 'port'}` while
 *   it has one (an agent's readiness wins: its state says more), and `localServerDetected` once for
 *   each server that appears (again on a new link, whose viewers start from nothing).
 */
import { basename, relative, isAbsolute } from 'node:path';
import type { AgentStatus } from '../../common/api/agentContract.ts';
import type { TerminalInfo } from '../../common/api/contract.ts';
import type { DevServer } from '../../common/api/devServerContract.ts';
import { RelayConstants } from '../../common/constants.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { encodeFrame, rfc3339 } from '../../common/protocol/relay/frames.ts';
import { type AgentTerminalStatus, BROADCAST_CHANNEL_ID, type TerminalExitReason } from '../../common/protocol/relay/messages.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import type { RelayLink } from './relayLink.ts';

export interface SharedTerminalsOptions {
  ptyHost: PtyHost;
  link: () => RelayLink | undefined;
  /** The protocol sessionId of this daemon's announcements. */
  sessionId: string;
  workspaceFolders: readonly string[];
  shareAll: boolean;
  throttleMs?: number;
}

interface Announced {
  /** What the last agentTerminalStarted said (title, cwd, command). */
  identity: string;
  /** What the viewers last heard of its status, readiness and agent (JSON of `AnnouncedState`). */
  state: string;
  timer: NodeJS.Timeout | undefined;
  lastUpdateAt: number;
  /** Ports told with localServerDetected on this link (a server that goes and comes back is told again). */
  servers: Set<number>;
}

export class SharedTerminals implements IDisposable {
  readonly #options: SharedTerminalsOptions;
  readonly #explicit = new Map<string, boolean>();
  #shareAll: boolean;
  /** Terminals the viewers of the current link were told about. */
  readonly #announced = new Map<string, Announced>();
  readonly #listeners: IDisposable[];
  readonly #throttleMs: number;

  constructor(options: SharedTerminalsOptions) {
    this.#options = options;
    this.#shareAll = options.shareAll;
    this.#throttleMs = options.throttleMs ?? RelayConstants.announceThrottleMs;
    this.#listeners = [
      options.ptyHost.onDidAddTerminal((info) => this.#sync(info)),
      options.ptyHost.onDidChangeTerminal((info) => this.#sync(info)),
      options.ptyHost.onDidRemoveTerminal(({ id }) => {
        this.#explicit.delete(id);
        this.#withdraw(id, 'process_exit');
      }),
    ];
  }

  get shareAll(): boolean {
    return this.#shareAll;
  }

  isShared(id: string): boolean {
    return this.#explicit.get(id) ?? this.#shareAll;
  }

  /** Ids of the terminals shared now. */
  sharedIds(): string[] {
    return this.#options.ptyHost
      .list()
      .map((info) => info.id)
      .filter((id) => this.isShared(id));
  }

  /** Share (or stop sharing) one terminal; overrides share-all for it. */
  setShared(id: string, shared: boolean): void {
    this.#options.ptyHost.require(id);
    this.#explicit.set(id, shared);
    this.#refresh(id);
  }

  /** Share every terminal without an explicit flag (or none). */
  setShareAll(shareAll: boolean): void {
    this.#shareAll = shareAll;
    for (const info of this.#options.ptyHost.list()) this.#refresh(info.id);
  }

  /** A link came up: its viewers know nothing yet. */
  announceAll(): void {
    this.#forgetAnnouncements();
    for (const info of this.#options.ptyHost.list()) this.#sync(info);
  }

  /** The link went down: announcements start over on the next one. */
  linkClosed(): void {
    this.#forgetAnnouncements();
  }

  dispose(): void {
    for (const listener of this.#listeners) listener.dispose();
    this.#forgetAnnouncements();
  }

  #refresh(id: string): void {
    const session = this.#options.ptyHost.get(id);
    if (!session) return;
    if (this.isShared(id)) this.#sync(session.info);
    else this.#withdraw(id, 'closed_by_user');
  }

  #sync(info: TerminalInfo): void {
    const link = this.#options.link();
    if (!link || !this.isShared(info.id)) return;
    const identity = JSON.stringify([info.name, info.cwd, commandPreview(info)]);
    const current = announcedStateOf(info);
    const state = JSON.stringify(current);
    const announced = this.#announced.get(info.id);
    if (!announced || announced.identity !== identity) {
      link.send(this.#startedFrame(info, current));
      if (announced) {
        announced.identity = identity;
        announced.state = state;
      } else {
        this.#announced.set(info.id, { identity, state, timer: undefined, lastUpdateAt: 0, servers: new Set() });
      }
      this.#detectServers(link, info);
      return;
    }
    // Servers are part of the state: a new one is told after the frame that lists its port.
    if (announced.state === state) return;
    // Throttled: a terminal flapping between states costs one frame per interval.
    const wait = announced.lastUpdateAt + this.#throttleMs - Date.now();
    if (wait > 0) {
      announced.timer ??= setTimeout(() => {
        announced.timer = undefined;
        const session = this.#options.ptyHost.get(info.id);
        if (session) this.#sync(session.info);
      }, wait);
      return;
    }
    announced.state = state;
    announced.lastUpdateAt = Date.now();
    link.send(
      encodeFrame('agentTerminalUpdated', {
        jobId: info.id,
        terminalId: info.id,
        sessionId: this.#options.sessionId,
        channelId: BROADCAST_CHANNEL_ID,
        ...current,
        updatedAt: rfc3339(),
      }),
    );
    this.#detectServers(link, info);
  }

  /** localServerDetected for each server of the pane not told yet on this link. */
  #detectServers(link: RelayLink, info: TerminalInfo): void {
    const announced = this.#announced.get(info.id);
    if (!announced) return;
    const servers = previewableServers(info);
    const ports = new Set(servers.map((server) => server.port));
    for (const port of announced.servers) if (!ports.has(port)) announced.servers.delete(port);
    for (const server of servers) {
      if (announced.servers.has(server.port)) continue;
      announced.servers.add(server.port);
      link.send(
        encodeFrame('localServerDetected', {
          sessionId: this.#options.sessionId,
          channelId: BROADCAST_CHANNEL_ID,
          host: server.host,
          port: server.port,
          url: server.url,
          command: commandPreview(info),
          source: 'port',
          detectedAt: rfc3339(server.since),
          terminalId: info.id,
        }),
      );
    }
  }

  #withdraw(id: string, reason: TerminalExitReason): void {
    const announced = this.#announced.get(id);
    if (!announced) return;
    clearTimeout(announced.timer);
    this.#announced.delete(id);
    const info = this.#options.ptyHost.get(id)?.info;
    this.#options.link()?.send(
      encodeFrame('terminalExit', {
        terminalId: id,
        sessionId: this.#options.sessionId,
        channelId: BROADCAST_CHANNEL_ID,
        ...(info?.exitCode != null ? { exitCode: info.exitCode } : {}),
        ...(info?.signal ? { signal: info.signal } : {}),
        reason,
        endedAt: rfc3339(info?.endedAt ?? Date.now()),
      }),
    );
  }

  #forgetAnnouncements(): void {
    for (const announced of this.#announced.values()) clearTimeout(announced.timer);
    this.#announced.clear();
  }

  #startedFrame(info: TerminalInfo, state: AnnouncedState): string {
    return encodeFrame('agentTerminalStarted', {
      jobId: info.id,
      terminalId: info.id,
      sessionId: this.#options.sessionId,
      channelId: BROADCAST_CHANNEL_ID,
      projectId: this.#projectOf(info.cwd),
      commandPreview: commandPreview(info),
      title: info.name,
      cwd: info.cwd,
      ...state,
      startedAt: rfc3339(info.createdAt),
    });
  }

  /** The workspace folder the terminal works in (its path), or "" when it is outside all of them. */
  #projectOf(cwd: string): string {
    for (const folder of this.#options.workspaceFolders) {
      const rel = relative(folder, cwd);
      if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) return folder;
    }
    return '';
  }
}

/** A terminal's status, readiness, servers and agent as `agentTerminalStarted|Updated` carry them. */
interface AnnouncedState {
  status: AgentTerminalStatus;
  readiness: { state: string; source?: string; matchedText?: string; readyAt?: string };
  ports: Array<{ host: string; port: number; url: string }>;
  urls: string[];
  agent: AgentStatus | null;
}

/**
 * The servers a preview may open: those a process of the pane holds (a printed URL whose port
 * only something outside the pane listens on is shown locally, not offered to viewers).
 */
export function previewableServers(info: TerminalInfo): DevServer[] {
  if (info.state !== 'running') return [];
  return (info.servers ?? []).filter((server) => server.pid !== null);
}

/**
 * - a terminal that ended: `exited` (status 0) | `failed` | `killed`, readiness `stopped`;
 * - a pane whose agent works: `running`, readiness `working`; one whose agent waits for the person
 *   (asks, or finished its turn): `ready`, readiness `needs-input` | `idle` with the reason as
 *   `matchedText` and `readyAt` = since when; `source` is `agent:<kind>` (`agent:claude-code`);
 * - any other running pane (a shell, or an agent that exited): `running`, readiness `ready`.
 */
export function announcedStateOf(info: TerminalInfo): AnnouncedState {
  const agent = info.agent ?? null;
  if (info.state !== 'running') {
    return { status: info.signal ? 'killed' : info.exitCode === 0 ? 'exited' : 'failed', readiness: { state: 'stopped' }, ports: [], urls: [], agent };
  }
  const servers = previewableServers(info);
  const ports = servers.map((server) => ({ host: server.host, port: server.port, url: server.url }));
  const urls = servers.map((server) => server.url);
  if (!agent || agent.state === 'exited') {
    if (servers.length === 0) return { status: 'running', readiness: { state: 'ready' }, ports, urls, agent };
    const readyAt = rfc3339(Math.min(...servers.map((server) => server.since)));
    return { status: 'running', readiness: { state: 'ready', source: 'port', readyAt }, ports, urls, agent };
  }
  const readiness = { state: agent.state, source: `agent:${agent.kind}`, ...(agent.reason ? { matchedText: agent.reason } : {}), readyAt: rfc3339(agent.since) };
  return { status: agent.state === 'working' ? 'running' : 'ready', readiness, ports, urls, agent };
}

function commandPreview(info: TerminalInfo): string {
  return info.runningCommand ?? [basename(info.file), ...info.args].join(' ').slice(0, 200);
}
