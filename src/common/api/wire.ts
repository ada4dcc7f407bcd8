/**
 * The message shapes that carry the contract over a transport (WebSocket text frames, Electron
 * IPC). A request names a method; the response answers it by id; events are pushed.
 *
 * One exception on the WebSocket: `terminal.output`, the flood path, travels as a binary frame
 * (below), so a pane's bytes are neither JSON-escaped on the Hub nor parsed as JSON in the page.
 */
import { z } from 'zod';
import { TerminalId } from './contractTypes.ts';
import { ApiErrorCodes } from './errors.ts';

export const WireRequest = z
  .object({
    type: z.literal('request'),
    id: z.number().int().min(0),
    method: z.string().min(1).max(100),
    params: z.unknown(),
  })
  .strict();
export type WireRequest = z.infer<typeof WireRequest>;

export const WireError = z.object({ code: z.enum(ApiErrorCodes), message: z.string() });

export const WireResponse = z.union([
  z.object({ type: z.literal('response'), id: z.number().int(), ok: z.literal(true), result: z.unknown() }),
  z.object({ type: z.literal('response'), id: z.number().int(), ok: z.literal(false), error: WireError }),
]);
export type WireResponse = z.infer<typeof WireResponse>;

export const WireEvent = z.object({ type: z.literal('event'), event: z.string(), payload: z.unknown() });
export type WireEvent = z.infer<typeof WireEvent>;

export const WireServerMessage = z.union([WireResponse, WireEvent]);
export type WireServerMessage = z.infer<typeof WireServerMessage>;

/** Result envelope used by Electron IPC (ipcMain.handle cannot carry typed errors). */
export type CallOutcome = { ok: true; result: unknown } | { ok: false; error: z.infer<typeof WireError> };

/**
 * A `terminal.output` event as one binary WebSocket frame:
 *
 *   byte 0          OutputFrame.kind (1)
 *   byte 1          n, the terminal id's length (1–64)
 *   bytes 2…2+n     the terminal id (ASCII, TerminalId)
 *   8 bytes         the event's offset: a float64, big-endian (a byte offset, a safe integer)
 *   the rest        the output, UTF-8 (the Hub's batches never end inside a sequence)
 *
 * Only the layout lives here (this layer has no TextEncoder): the Hub encodes the text with
 * Node's Buffer, the page decodes it with TextDecoder.
 */
export const OutputFrame = {
  kind: 1,
  /** Bytes before the id. */
  idStart: 2,
  offsetBytes: 8,
} as const;

export interface OutputFrameHeader {
  id: string;
  offset: number;
  /** Where the UTF-8 output starts in the frame. */
  dataStart: number;
}

/** Writes the header for `id` and `offset` at the start of `frame`; returns where the output goes. */
export function writeOutputFrameHeader(frame: Uint8Array, id: string, offset: number): number {
  frame[0] = OutputFrame.kind;
  frame[1] = id.length;
  for (let index = 0; index < id.length; index++) frame[OutputFrame.idStart + index] = id.charCodeAt(index);
  const offsetAt = OutputFrame.idStart + id.length;
  new DataView(frame.buffer, frame.byteOffset, frame.byteLength).setFloat64(offsetAt, offset);
  return offsetAt + OutputFrame.offsetBytes;
}

/** The header's size for a terminal id (ids are ASCII: one byte per char). */
export function outputFrameHeaderBytes(id: string): number {
  return OutputFrame.idStart + id.length + OutputFrame.offsetBytes;
}

/** Reads and checks a binary frame's header; a string says what is wrong with it. */
export function readOutputFrameHeader(frame: Uint8Array): OutputFrameHeader | string {
  if (frame.length < OutputFrame.idStart || frame[0] !== OutputFrame.kind) return `not an output frame (kind ${frame[0] ?? 'missing'})`;
  const idLength = frame[1]!;
  const offsetAt = OutputFrame.idStart + idLength;
  const dataStart = offsetAt + OutputFrame.offsetBytes;
  if (frame.length < dataStart) return `an output frame of ${frame.length} bytes is shorter than its header (${dataStart})`;
  const id = String.fromCharCode(...frame.subarray(OutputFrame.idStart, offsetAt));
  if (!TerminalId.safeParse(id).success) return `an output frame names no valid terminal id (${JSON.stringify(id)})`;
  const offset = new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getFloat64(offsetAt);
  if (!Number.isSafeInteger(offset) || offset < 0) return `an output frame has a bad offset (${offset})`;
  return { id, offset, dataStart };
}
