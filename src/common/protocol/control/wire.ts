/**
 * The control socket's wire format (docs/protocol.md), shared by the server (src/node/control)
 * and its clients (src/cli): one JSON object per line; requests `{id, cmd, ...fields}`, responses
 * in claws' envelope `{id, rid, protocol:"claws/1", ok, ...body}`. `rid` always carries the
 * request's id; a body field `id` (the new terminal of `create`) replaces `id`, never `rid`.
 *
 * The error strings here are claws' own, which claws clients match on: never reword them.
 */
import { z } from 'zod';
import type { ApiErrorCode } from '../../api/errors.ts';

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

/**
 * A response line as a client reads it. Loose: the body's fields sit beside these, and a claws
 * server sends no `code`.
 */
export const ResponseEnvelope = z.looseObject({
  id: z.unknown().optional(),
  rid: z.union([z.string(), z.number()]).optional(),
  protocol: z.unknown().optional(),
  ok: z.boolean(),
  error: z.string().optional(),
  /** Our server adds a code (`NOT_FOUND`, `TIMEOUT`, …) to its errors; claws servers do not. */
  code: z.string().optional(),
});

/** A claws/2 push frame: `message` (topic, from, payload, sentAt, sequence) or `caught-up`. It has no `rid` and no `ok`. */
export const PushFrame = z.looseObject({
  push: z.string(),
  topic: z.string().optional(),
  from: z.string().optional(),
  payload: z.unknown().optional(),
  sentAt: z.number().optional(),
  sequence: z.number().optional(),
  replayed: z.boolean().optional(),
  subscriptionId: z.string().optional(),
  replayedCount: z.number().optional(),
  /** A number, or a claws cursor string for a client that subscribed with one. */
  resumeCursor: z.union([z.number(), z.string()]).optional(),
});
export type PushFrame = z.infer<typeof PushFrame>;

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
