/**
 * The claws wire format (see docs/protocol.md): one JSON object per line, responses in the
 * envelope `{id, rid, protocol:"claws/1", ok, ...body}`. `rid` always carries the request's id;
 * a body field `id` (the new terminal of `create`) replaces `id`, never `rid`.
 */
import { z } from 'zod';
import type { ApiErrorCode } from '../../common/api/errors.ts';

export const ProtocolV1 = 'claws/1';
export const ProtocolV2 = 'claws/2';
export const supportedProtocols: readonly string[] = [ProtocolV1, ProtocolV2];

export type RequestId = string | number;
export type ResponseBody = Record<string, unknown>;

/** The exact error strings of claws, which clients match on. */
export const ProtocolErrors = {
  badJson: 'bad json',
  requestTooLarge: 'request too large',
  incompatibleProtocol: 'incompatible protocol version',
  unknownCommand: (cmd: string) => `unknown cmd: ${cmd}`,
  unknownTerminal: (id: RequestId) => `unknown terminal id ${id}`,
} as const;

/** A request id or a terminal reference: claws uses numbers and strings interchangeably. */
export const IdValue = z.union([z.string().min(1).max(256), z.number().finite()]);

/** What every request must have before it reaches a command. */
export const RequestEnvelope = z.object({
  id: IdValue,
  cmd: z.string().min(1).max(128),
  clientName: z.string().max(200).optional(),
  clientVersion: z.string().max(100).optional(),
});

/** An expected failure: its message goes to the client as `error` (and `code`, for our own clients). */
export class ControlError extends Error {
  readonly code: ApiErrorCode | undefined;
  /**
   * Fields sent beside `error` in the response: what a failed request still has to tell (an exec
   * that timed out: the output so far and what the pane waits for). Never `ok`, `rid` or `error`.
   */
  readonly details: ResponseBody | undefined;
  constructor(message: string, code?: ApiErrorCode, details?: ResponseBody) {
    super(message);
    this.name = 'ControlError';
    this.code = code;
    this.details = details;
  }
}

/** One response line (with its newline). `rid` undefined (a frame that had no usable id) drops id and rid. */
export function encodeResponse(rid: RequestId | undefined, ok: boolean, body: ResponseBody = {}): string {
  const envelope: Record<string, unknown> = { id: rid, rid, protocol: ProtocolV1, ok };
  for (const key of Object.keys(body)) {
    if (key === 'rid' || key === 'ok') continue;
    envelope[key] = body[key];
  }
  return JSON.stringify(envelope) + '\n';
}

export function encodeError(rid: RequestId | undefined, message: string, code?: ApiErrorCode, details?: ResponseBody): string {
  return encodeResponse(rid, false, { ...details, ...(code ? { error: message, code } : { error: message }) });
}
