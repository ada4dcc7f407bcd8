/** Field schemas and helpers the control commands' params share. */
import { z } from 'zod';
import { ControlConstants, TerminalConstants } from '../../constants.ts';
import { IdValue } from './wire.ts';

/** The terminal a request targets; absent: the request's own `id` (the claws convention). */
export const TerminalRef = IdValue.optional();
export const Cols = z.number().int().min(TerminalConstants.minCols).max(TerminalConstants.maxCols);
export const Rows = z.number().int().min(TerminalConstants.minRows).max(TerminalConstants.maxRows);
export const TimeoutMs = z.number().int().min(1).max(ControlConstants.maxTimeoutMs);

/**
 * The params of a claws command. claws' clients send `null` for an optional field they leave
 * unset (its Python client puts `"cwd": null` in every `create`), so for claws' own commands a
 * null field is an absent one. (Not for our own commands: `review.request` takes null as a value.)
 */
export function clawsParams<T extends z.ZodRawShape>(shape: T): z.ZodType<z.output<z.ZodObject<T>>, z.input<z.ZodObject<T>>> {
  // A preprocess step's input type is `unknown`; clients are typed with the object's own input.
  return z.preprocess((value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null));
  }, z.object(shape)) as unknown as z.ZodType<z.output<z.ZodObject<T>>, z.input<z.ZodObject<T>>>;
}

/** One field claws clients send as null when they leave it unset. */
export const absentIfNull = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? undefined);

/**
 * A command that takes fields picked (and renamed) from the request onto another schema, e.g. a
 * Hub API method's params. The request's envelope (id, cmd, protocol, clientName) is not the
 * method's, so only the picked fields are validated.
 */
export function pickedParams<Out, In>(pick: (fields: Record<string, unknown>) => Record<string, unknown>, schema: z.ZodType<Out, In>) {
  return z
    .looseObject({})
    .transform((fields) => withoutUndefined(pick(fields)))
    .pipe(schema as unknown as z.ZodType<Out, Record<string, unknown>>);
}

export function withoutUndefined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** The result of a command that never answers ok (claws commands Switchboard refuses). */
export const NoResult = z.never();
