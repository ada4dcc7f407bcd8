/**
 * Bus cursors in both dialects. Ours is the sequence number of the last message a client has seen
 * (`fromCursor: N` replays sequences > N). claws' is a string `"<4-digit segment>:<byte offset>"`
 * into its segmented event log, where `"0000:0"` is the start of the log (claws'
 * `stream-events.js --wait` subscribes with it to replay everything).
 *
 * Our log has no segments, so a claws-dialect cursor we hand out is `"0000:<sequence>"`: it names
 * the same point as the number does, `"0000:0"` still means "from the start", and a claws client
 * can give it back unchanged. A cursor with another segment came from a claws server's own log
 * and names nothing here: it is refused rather than guessed at.
 */
import { z } from 'zod';

/** claws' format (its `parseCursor`): exactly four digits, a colon, a decimal offset. */
const clawsCursorPattern = /^(\d{4}):(\d+)$/;
const decimalPattern = /^\d+$/;

export type CursorDialect = 'number' | 'claws';

export interface ParsedCursor {
  /** Replay messages with a sequence greater than this. */
  sequence: number;
  /** How the client wrote it: answers use the same form. */
  dialect: CursorDialect;
}

export const CursorErrors = {
  invalid: (cursor: string) =>
    `invalid cursor ${JSON.stringify(cursor)}: give a sequence number (e.g. 0) or a claws cursor "0000:<sequence>" (e.g. "0000:0")`,
  foreignSegment: (cursor: string) =>
    `cursor ${JSON.stringify(cursor)} names segment ${cursor.slice(0, 4)} of a claws server's event log; Switchboard's log has one segment, so its cursors are "0000:<sequence>" ("0000:0" replays everything kept)`,
} as const;

export function parseCursor(value: number | string): { ok: true; cursor: ParsedCursor } | { ok: false; error: string } {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) return { ok: false, error: CursorErrors.invalid(String(value)) };
    return { ok: true, cursor: { sequence: value, dialect: 'number' } };
  }
  const claws = clawsCursorPattern.exec(value);
  if (claws) {
    if (Number(claws[1]) !== 0) return { ok: false, error: CursorErrors.foreignSegment(value) };
    const sequence = Number(claws[2]);
    if (!Number.isSafeInteger(sequence)) return { ok: false, error: CursorErrors.invalid(value) };
    return { ok: true, cursor: { sequence, dialect: 'claws' } };
  }
  // A number sent as a string ("42") is still a number.
  if (decimalPattern.test(value) && Number.isSafeInteger(Number(value))) return { ok: true, cursor: { sequence: Number(value), dialect: 'number' } };
  return { ok: false, error: CursorErrors.invalid(value) };
}

/** A cursor in the client's dialect. */
export function formatCursor(sequence: number, dialect: CursorDialect): number | string {
  return dialect === 'claws' ? `0000:${sequence}` : sequence;
}

/** `fromCursor` as it arrives: a number, a claws cursor string, or a decimal string. */
export const CursorParam = z.union([z.number(), z.string().max(64)]).transform((value, context) => {
  const parsed = parseCursor(value);
  if (!parsed.ok) {
    context.addIssue({ code: 'custom', message: parsed.error });
    return z.NEVER;
  }
  return parsed.cursor;
});
