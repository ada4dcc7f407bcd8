/**
 * Preview bodies as binary WebSocket frames — a Switchboard extension of the GSD protocol, used
 * only between two peers that both said so (`previewBinaryBodies: true` in the daemon's
 * `hello.capabilities` and in the relay's `welcome`); with anyone else bodies stay base64 in JSON.
 *
 * Why: carried as base64 in a JSON text frame, every body byte is base64-encoded, put in a JSON
 * string, UTF-8-encoded, decoded to a string on the other side, scanned for the envelope's limits,
 * parsed, checked as base64 and decoded — eight passes over the data that a plain reverse proxy never
 * makes (docs/benchmarks.md, `preview-tunnel`: they held the tunnel to about a quarter of a bare
 * proxy's download rate). A binary frame carries the same message with its body as bytes:
 *
 *   4 bytes       n, the header's length in bytes (uint32, big-endian)
 *   n bytes       the header: the message's JSON, exactly as in a text frame, with `"bodyBase64":""`
 *   the rest      the body
 *
 * The header goes through the same envelope limits and schema as any frame (so every field is
 * checked the one way); only `previewStreamChunk` and `previewWebSocketData` may be sent like this.
 */
import { parseEnvelope } from '../../../common/protocol/relay/envelope.ts';
import { type EnvelopeLimits, normalizeEnvelopeLimits } from '../../../common/protocol/relay/frameLimits.ts';
import { isStdBase64 } from '../../../common/protocol/relay/frames.ts';
import type { RelayFields, RelayMessage } from '../../../common/protocol/relay/messages.ts';

export type BodyFrameType = 'previewStreamChunk' | 'previewWebSocketData';

const bodyFrameTypes: ReadonlySet<string> = new Set<BodyFrameType>(['previewStreamChunk', 'previewWebSocketData']);

/** Bytes before the header. */
const headerLengthBytes = 4;

/** A body message as a handler gets it: from a binary frame its `body` is set (and `bodyBase64` empty). */
export interface BodyCarrier {
  bodyBase64: string;
  body?: Buffer;
}

export type DecodedBodyFrame = { ok: true; message: RelayMessage & { body: Buffer } } | { ok: false; kind: string; error: string };

/** One binary frame: the header (the message without its body) and the body bytes after it. */
export function encodeBodyFrame<T extends BodyFrameType>(type: T, fields: Omit<RelayFields<T>, 'bodyBase64'>, body: Buffer): Buffer {
  const header = Buffer.from(JSON.stringify({ type, ...fields, bodyBase64: '' }), 'utf8');
  const frame = Buffer.allocUnsafe(headerLengthBytes + header.length + body.length);
  frame.writeUInt32BE(header.length, 0);
  header.copy(frame, headerLengthBytes);
  body.copy(frame, headerLengthBytes + header.length);
  return frame;
}

/** Reads and checks a binary frame; the error says what is wrong, in the envelope's words where it applies. */
export function decodeBodyFrame(frame: Buffer, limits?: Partial<EnvelopeLimits>): DecodedBodyFrame {
  const { maxFrameBytes } = normalizeEnvelopeLimits(limits);
  if (frame.length > maxFrameBytes) return { ok: false, kind: 'size', error: `frame exceeds max size: ${frame.length} > ${maxFrameBytes} bytes` };
  if (frame.length < headerLengthBytes) return { ok: false, kind: 'binary-short', error: `a binary frame of ${frame.length} bytes has no header length` };
  const headerBytes = frame.readUInt32BE(0);
  if (headerBytes > frame.length - headerLengthBytes) {
    return { ok: false, kind: 'binary-header', error: `a binary frame's header of ${headerBytes} bytes is longer than the frame (${frame.length} bytes)` };
  }
  const parsed = parseEnvelope(frame.toString('utf8', headerLengthBytes, headerLengthBytes + headerBytes), { byteLength: headerBytes, ...(limits ? { limits } : {}) });
  if (!parsed.ok) return { ok: false, kind: parsed.kind, error: parsed.error };
  const message = parsed.message;
  if (!bodyFrameTypes.has(message.type)) return { ok: false, kind: 'binary-type', error: `${message.type} is never sent as a binary frame` };
  if ((message as BodyCarrier).bodyBase64 !== '') return { ok: false, kind: 'binary-body', error: `${message.type}: a binary frame carries its body after the header, and bodyBase64 must be ""` };
  return { ok: true, message: Object.assign(message, { body: frame.subarray(headerLengthBytes + headerBytes) }) };
}

/** A body message's bytes: a binary frame's own, or its base64 decoded; undefined when that is not standard base64. */
export function bodyBytes(message: BodyCarrier): Buffer | undefined {
  if (message.body) return message.body;
  return isStdBase64(message.bodyBase64) ? Buffer.from(message.bodyBase64, 'base64') : undefined;
}
