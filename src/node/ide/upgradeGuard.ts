/**
 * Who may open the IDE bridge's WebSocket: decided from the upgrade request alone, before any
 * frame is exchanged. The bridge listens on 127.0.0.1, but any local process (and any web page
 * the user visits, through the browser) can reach a loopback port, so:
 * - a request carrying an `Origin` header comes from a browser, never from the CLI: refused (403);
 * - the lock file's token must come in `x-claude-code-ide-authorization` (constant-time compare;
 *   missing or wrong: 401);
 * - the client must offer the `mcp` subprotocol (400 otherwise): the CLI aborts unless the
 *   handshake answers `Sec-WebSocket-Protocol: mcp`, so anything else is not a CLI.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const ideAuthHeader = 'x-claude-code-ide-authorization';
export const ideSubprotocol = 'mcp';

export type UpgradeDecision = { ok: true } | { ok: false; status: 400 | 401 | 403; reason: string };

export function checkUpgrade(headers: IncomingHttpHeaders, authToken: string): UpgradeDecision {
  if (headers.origin !== undefined) return { ok: false, status: 403, reason: 'requests from web pages (with an Origin header) are not accepted' };
  const presented = headers[ideAuthHeader];
  if (typeof presented !== 'string' || !tokensEqual(presented, authToken)) {
    return { ok: false, status: 401, reason: `missing or wrong ${ideAuthHeader}` };
  }
  const protocols = (headers['sec-websocket-protocol'] ?? '').split(',').map((protocol) => protocol.trim());
  if (!protocols.includes(ideSubprotocol)) return { ok: false, status: 400, reason: `the WebSocket subprotocol must be "${ideSubprotocol}"` };
  return { ok: true };
}

/** Compares digests so neither the content nor the length of the token leaks through timing. */
export function tokensEqual(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
