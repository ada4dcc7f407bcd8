/**
 * The message shapes that carry the contract over a transport (WebSocket text frames, Electron
 * IPC). A request names a method; the response answers it by id; events are pushed.
 */
import { z } from 'zod';
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
