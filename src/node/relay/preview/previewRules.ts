/**
 * The preview tunnel's rules that need no socket (docs/relay.md "Dev-server previews"): which
 * targets are allowed (loopback only, never a name resolved), what an `expiresAt` must look like,
 * which paths, methods and headers go on to a dev server, the limits and their defaults, and the
 * bounded memory of ended stream ids.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { RelayConstants } from '../../../common/constants.ts';

/** The tunnel's limits; RelayClientOptions.preview overrides them (tests use small values). */
export interface PreviewLimits {
  /** Body bytes per previewStreamChunk / previewWebSocketData before base64 (advertised). */
  chunkBytes: number;
  maxOpenPreviews: number;
  maxStreamsPerPreview: number;
  maxStreamsPerMachine: number;
  maxRequestBodyBytes: number;
  maxResponseBodyBytes: number;
  idleTimeoutMs: number;
  totalTimeoutMs: number;
  /** How long the dev server may take to accept a WebSocket. */
  openTimeoutMs: number;
  /**
   * Per stream: body bytes held here for the relay (the dev server's reader pauses past it), and
   * the window advertised as `previewStreamWindowBytes` (what the relay may send us unacknowledged).
   */
  bufferBytes: number;
  /**
   * How long a preview outlives its server's port: a dev server restarting (nodemon, Vite after a
   * config change, the person pressing Ctrl-C and running it again) keeps the preview — and the
   * viewer's tab on it — if it listens again within this time; past it the preview closes with
   * `port_closed`. Meanwhile a request gets the dev server's connection error, as from any proxy.
   */
  portGraceMs: number;
}

export const defaultPreviewLimits: Readonly<PreviewLimits> = Object.freeze({
  chunkBytes: RelayConstants.previewChunkBytes,
  maxOpenPreviews: RelayConstants.previewMaxOpenPerMachine,
  maxStreamsPerPreview: RelayConstants.previewMaxStreamsPerPreview,
  maxStreamsPerMachine: RelayConstants.previewMaxStreamsPerMachine,
  maxRequestBodyBytes: RelayConstants.previewMaxRequestBodyBytes,
  maxResponseBodyBytes: RelayConstants.previewMaxResponseBodyBytes,
  idleTimeoutMs: RelayConstants.previewStreamIdleTimeoutMs,
  totalTimeoutMs: RelayConstants.previewStreamTotalTimeoutMs,
  openTimeoutMs: RelayConstants.previewOpenTimeoutMs,
  bufferBytes: RelayConstants.previewStreamBufferBytes,
  portGraceMs: 30_000,
});

/** Error codes of `previewOpenResult` (the daemon's). */
export type PreviewOpenErrorCode = 'target_not_loopback' | 'port_not_shared' | 'expired' | 'preview_exists' | 'too_many_previews' | 'not_supported';

/** Error codes of `previewWebSocketOpenResult`. `bad_request`: a path or sub-protocol the daemon will not send on. */
export type PreviewWebSocketErrorCode = 'upstream_refused' | 'upstream_unreachable' | 'unknown_preview' | 'too_many_streams' | 'bad_request';

/** Reasons of a `previewClose` the daemon sends. */
export type PreviewCloseReason = 'pane_exited' | 'port_closed' | 'unshared' | 'expired' | 'daemon_shutdown';

/**
 * 127.0.0.0/8, ::1 (also bracketed) or `localhost` — nothing else, and no name is ever resolved:
 * the tunnel is not a proxy into the machine's network.
 */
export function isLoopbackTarget(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  if (isIPv4(bare)) return bare.split('.')[0] === '127';
  if (isIPv6(bare)) {
    const parts = expandZeros(bare).split(':');
    return parts.length === 8 && parts.slice(0, 7).every((part) => /^0{1,4}$/.test(part)) && /^0{0,3}1$/.test(parts[7]!);
  }
  return false;
}

/** `::1`, `0:0:…:1` and `::0001` are all the IPv6 loopback; written out so one pattern covers them. */
function expandZeros(address: string): string {
  if (!address.includes('::')) return address;
  const [head, tail] = address.split('::') as [string, string];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  return [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right].join(':');
}

/** The host to dial for a target: brackets dropped (node:http wants `::1`, not `[::1]`). */
export function dialHost(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

const rfc3339Pattern = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/i;

/** Epoch ms of an RFC 3339 timestamp, or undefined when it is not one. */
export function parseRfc3339(text: string): number | undefined {
  if (!rfc3339Pattern.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isFinite(at) ? at : undefined;
}

/**
 * Origin-form only (`/a/b?c`): starts with one `/`, no `//` authority, no scheme, no fragment, no
 * whitespace or control characters, at most 8 KiB. Anything else could make node:http (or the
 * dev server) treat it as another target.
 */
export function isOriginFormPath(path: string): boolean {
  if (path.length === 0 || path.length > 8192) return false;
  if (path[0] !== '/' || path.startsWith('//')) return false;
  return !/[\u0000-\u0020\u007f-\uffff#\\]/.test(path);
}

const tokenPattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** An RFC 9110 token (methods, header names, WebSocket sub-protocols). */
export function isHttpToken(text: string): boolean {
  return text.length > 0 && text.length <= 256 && tokenPattern.test(text);
}

/** Methods the tunnel carries: any token but CONNECT (a tunnel in the tunnel) and TRACE. */
export function isForwardableMethod(method: string): boolean {
  return isHttpToken(method) && method !== 'CONNECT' && method !== 'TRACE';
}

/** RFC 9110 §7.6.1, plus the proxy-era ones: never forwarded either way, by the machine or by the relay. */
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'http2-settings']);

/** The header names a message's `Connection` header lists (`Connection: close, x-foo`): hop-by-hop for that message. */
export function connectionTokens(values: readonly string[] | string | undefined): Set<string> {
  const named = new Set<string>();
  for (const value of typeof values === 'string' ? [values] : (values ?? [])) {
    for (const token of value.split(',')) {
      const name = token.trim().toLowerCase();
      if (name !== '') named.add(name);
    }
  }
  return named;
}

/** A header that stays with one hop: the standard ones, and those `named` by the message's Connection header. */
export function isHopByHop(name: string, named: ReadonlySet<string>): boolean {
  return hopByHop.has(name) || named.has(name);
}

/** Header values node:http accepts (its checkInvalidHeaderChar): tab, visible ASCII, and obs-text. */
const badValue = /[^\t\u0020-\u007e\u0080-\u00ff]/;

export type HeaderRecord = Record<string, string[]>;

/**
 * Headers of a request to the dev server: lower-case names, hop-by-hop ones (and those `Connection`
 * names) dropped, invalid names and values dropped; `host` defaults to `localhost:<port>` (the relay
 * rewrites it so; one it sent is kept). For a WebSocket the handshake's own `sec-websocket-*`
 * headers are dropped too (the client makes them).
 */
export function requestHeaders(headers: HeaderRecord | undefined, port: number, options: { webSocket?: boolean } = {}): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const named = connectionTokens(Object.entries(headers ?? {}).flatMap(([name, values]) => (name.toLowerCase() === 'connection' ? values : [])));
  for (const [rawName, values] of Object.entries(headers ?? {})) {
    const name = rawName.toLowerCase();
    if (!isHttpToken(name) || isHopByHop(name, named)) continue;
    if (options.webSocket && name.startsWith('sec-websocket-')) continue;
    const kept = values.filter((value) => !badValue.test(value));
    if (kept.length === 0) continue;
    out[name] = name === 'host' || name === 'content-length' ? kept[0]! : kept;
  }
  if (out['host'] === undefined) out['host'] = `localhost:${port}`;
  return out;
}

/** Headers of the dev server's response for `previewHttpResponseHead`: hop-by-hop dropped, values as lists. */
export function responseHeaders(headers: NodeJS.Dict<string[]>): HeaderRecord {
  const out: HeaderRecord = {};
  const named = connectionTokens(headers['connection']);
  for (const [name, values] of Object.entries(headers)) {
    if (!values || isHopByHop(name, named)) continue;
    out[name] = values;
  }
  return out;
}

/** A close code a WebSocket may send (RFC 6455 §7.4: 1005, 1006 and 1015 are never sent). */
export function isSendableCloseCode(code: number | undefined): code is number {
  if (code === undefined || !Number.isInteger(code)) return false;
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}

/** A close reason within the 123 bytes a close frame allows (cut on a character boundary). */
export function closeReason(reason: string | undefined): string {
  if (!reason) return '';
  let out = reason;
  while (Buffer.byteLength(out) > 123) out = out.slice(0, -1);
  return out;
}

/**
 * Stream ids that ended within a preview's life, so a reuse is told apart from a new stream, and
 * the ones already answered with a cancel (a chunk in flight when a stream ended gets one cancel,
 * not one per chunk). Oldest forgotten past `max`: memory stays bounded whatever the relay sends.
 */
export class EndedIds {
  readonly #max: number;
  readonly #ids = new Map<string, { answered: boolean }>();

  constructor(max = 1024) {
    this.#max = max;
  }

  /** `answered`: the peer was already told (our cancel), so a late frame needs no answer. */
  add(id: string, answered = false): void {
    this.#ids.delete(id);
    this.#ids.set(id, { answered });
    if (this.#ids.size > this.#max) this.#ids.delete(this.#ids.keys().next().value!);
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /** True the first time it is asked for an ended id (answer it), false afterwards and for unknown ids. */
  answerOnce(id: string): boolean {
    const entry = this.#ids.get(id);
    if (!entry || entry.answered) return false;
    entry.answered = true;
    return true;
  }

  get size(): number {
    return this.#ids.size;
  }
}
