/**
 * Type-level tests of the control command table, checked by `npm run typecheck` (not run): each
 * `@ts-expect-error` line must fail to compile, so a renamed field fails the typecheck rather than
 * a user. If one of them starts compiling, tsc reports the unused directive.
 */
import type { ControlRequestParams, ControlResult, ControlResultBody } from '../../../../../src/common/protocol/control/commands.ts';

// What a handler returns: every declared field, by its declared name.
export const readLogBody: ControlResultBody<'readLog'> = { bytes: '', offset: 0, nextOffset: 0, totalSize: 0, truncated: false, logPath: null };
// @ts-expect-error a renamed result field (nextOfset) leaves nextOffset missing
export const renamedBody: ControlResultBody<'readLog'> = { bytes: '', offset: 0, nextOfset: 0, totalSize: 0, truncated: false, logPath: null };
// @ts-expect-error a declared field of the wrong type
export const wrongType: ControlResultBody<'send'> = { mode: 'wrapped', pasted: false, offset: '12' };
// Fields beyond the declared ones are allowed: results are loose, so servers may add fields.
export const extraField: ControlResultBody<'ping'> = { serverTime: 1, uptime: 2 };

// What a client reads.
export function readAnswer(answer: ControlResult<'readLog'>): number {
  // @ts-expect-error a client that reads a renamed field gets `unknown`, not a number
  const misspelled: number = answer.nextOfset;
  void misspelled;
  return answer.nextOffset;
}

// What a client sends.
export const sendParams: ControlRequestParams<'send'> = { terminalId: 't1', text: 'ls', newline: true };
// @ts-expect-error a param of the wrong type
export const badSendParams: ControlRequestParams<'send'> = { terminalId: 't1', text: 42 };
