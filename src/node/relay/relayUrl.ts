/**
 * The relay URL a daemon dials: `wss://<relay>/ws/daemon?machineId=<id>`, keeping whatever query
 * (and path prefix, for a relay behind a reverse proxy at `/relay/`) the configured URL has. The
 * token never goes into the URL (it travels as `Authorization: Bearer`), and plain `ws://` is only
 * allowed to a loopback relay: anything else would send the token and every keystroke in clear.
 */
import { z } from 'zod';

export const DAEMON_PATH = '/ws/daemon';
export const VIEWER_PATH = '/ws/ui';

/** Machine ids name a machine in URLs, token files and logs: keep them plain. */
export const MachineId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'machine ids are letters, digits, "_", "." and "-" (starting with a letter or digit)');

export function isLoopbackHostname(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * Build the daemon URL from the configured relay URL. Throws an Error with a message for the
 * user when the URL is unusable. `http(s)://` is accepted and mapped to `ws(s)://`.
 */
export function daemonUrl(configured: string, machineId: string): URL {
  let url: URL;
  try {
    url = new URL(configured);
  } catch {
    throw new Error(`relay URL is not a URL: ${JSON.stringify(configured)}`);
  }
  if (url.protocol === 'https:') url.protocol = 'wss:';
  else if (url.protocol === 'http:') url.protocol = 'ws:';
  if (url.protocol !== 'wss:' && url.protocol !== 'ws:') throw new Error(`relay URL must be wss:// (or ws:// to a loopback relay), got ${url.protocol}//`);
  if (url.protocol === 'ws:' && !isLoopbackHostname(url.hostname)) {
    throw new Error(`plain ws:// is only allowed to a loopback relay; use wss://${url.host} (put TLS in front of the relay)`);
  }
  if (url.username || url.password) throw new Error('relay URL must not carry credentials; the token goes in SWITCHBOARD_RELAY_TOKEN');
  if (url.searchParams.has('token')) throw new Error('relay URL must not carry a token; the token goes in SWITCHBOARD_RELAY_TOKEN');
  const machine = MachineId.safeParse(machineId);
  if (!machine.success) throw new Error(`invalid machine id ${JSON.stringify(machineId)}: ${machine.error.issues[0]!.message}`);
  if (!url.pathname.endsWith(DAEMON_PATH)) url.pathname = url.pathname.replace(/\/+$/, '') + DAEMON_PATH;
  url.hash = '';
  url.searchParams.set('machineId', machineId);
  return url;
}

/** A host name as a machine id (characters outside `[A-Za-z0-9_.-]` become "-"): the default when none is configured. */
export function defaultMachineId(host: string): string {
  const cleaned = host.replace(/[^A-Za-z0-9_.-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 128);
  return cleaned || 'switchboard';
}
