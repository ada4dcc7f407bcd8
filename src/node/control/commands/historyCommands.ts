/**
 * History over the control socket (docs/protocol.md, "History"): `history.list`,
 * `history.search`, `history.get`, `history.read` (by offset, like `readLog`),
 * `history.commands`, `history.export` and `history.reference`. Each maps its fields onto the
 * Hub's `history.*` API method (the table's params do the mapping), so the socket, the UI and the
 * CLI see the same answers and the same validation.
 */
import { isApiError } from '../../../common/api/errors.ts';
import type { historyMethods } from '../../../common/api/historyContract.ts';
import type { MethodResult, ParsedParams } from '../../../common/api/contract.ts';
import { ControlConstants } from '../../../common/constants.ts';
import { stripAnsi } from '../../../common/terminal/ansiStrip.ts';
import { type ControlCommand, defineCommand } from '../commandRegistry.ts';
import { pointerInput } from '../../history/references.ts';
import { ControlError } from '../protocol.ts';
import { readScreenOrNull } from '../terminalInput.ts';
import { audit, type ControlServices, requireRunning, requireTerminal } from './services.ts';
import { incompleteUtf8TailLength, leadingContinuationLength } from '../../../common/terminal/utf8Boundaries.ts';

export type HistoryMethod = keyof typeof historyMethods;

/** Runs a Hub `history.*` method (params already validated by the contract schema). */
export type HistoryCall = <M extends HistoryMethod>(method: M, params: ParsedParams<M>) => Promise<MethodResult<M>>;

export function historyCommands(call: HistoryCall, services: ControlServices): ControlCommand[] {
  const run = async <M extends HistoryMethod>(method: M, params: ParsedParams<M>): Promise<MethodResult<M>> => {
    try {
      return await call(method, params);
    } catch (error) {
      if (isApiError(error)) throw new ControlError(error.message, error.code);
      throw error;
    }
  };
  return [
    defineCommand('history.list', async (params) => await run('history.list', params)),
    defineCommand('history.search', async (params) => await run('history.search', params)),
    defineCommand('history.get', async (params) => ({ session: await run('history.get', params) })),
    defineCommand('history.commands', async (params) => await run('history.commands', params)),
    defineCommand('history.export', async (params) => await run('history.export', params)),
    defineCommand('history.read', async (params) => {
      const limit = Math.min(params.limit ?? ControlConstants.readLogMaxBytes, ControlConstants.readLogMaxBytes);
      const read = await run('history.read', withoutUndefined({ id: params.sessionId, offset: params.offset, limit }) as ParsedParams<'history.read'>);
      let data = Buffer.from(read.data, 'base64');
      let start = read.offset;
      if (start !== params.offset) {
        const skip = leadingContinuationLength(data);
        data = data.subarray(skip);
        start += skip;
      }
      if (start + data.length < read.endOffset) data = data.subarray(0, data.length - incompleteUtf8TailLength(data));
      const nextOffset = start + data.length;
      const text = data.toString('utf8');
      return {
        sessionId: params.sessionId,
        bytes: params.strip === false ? text : stripAnsi(text),
        offset: start,
        nextOffset,
        totalSize: read.endOffset,
        // More follows, or the start was moved up past output the per-session cap dropped.
        truncated: read.truncated || nextOffset < read.endOffset,
      };
    }),
    defineCommand('history.reference', async (params, context) => {
      const target = params.deliverTo === undefined ? undefined : requireTerminal(services, params.deliverTo, context);
      if (target) requireRunning(target);
      // The same guard as `send`, asked before any file is written: a pane with the person's
      // half-typed line refuses here, and nothing is left behind.
      const guard = target
        ? services.typingGuard.guardFor(target.id, { wait: params.wait ?? true, isConnected: () => context.peer.connected, session: target })
        : undefined;
      await guard?.waitForTurn();
      const result = await run('history.reference', withoutUndefined({ items: params.items, notes: params.notes }) as ParsedParams<'history.reference'>);
      if (!target) return result;
      const screen = await readScreenOrNull(target, services.logger);
      const input = pointerInput(result.pointer, screen?.bracketedPaste ?? false);
      try {
        await services.input.send(target, input.text, {
          newline: false,
          paste: input.paste,
          guard,
          onTyped: () => audit(services, context, target.id, input.text),
        });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new ControlError(
          `wrote ${result.files.length} transcript file(s) (${result.files.map((file) => file.path).join(', ')}) but did not type the pointer into terminal ${target.id}: ${reason}`,
          error instanceof ControlError ? error.code : undefined,
          // The files are complete: a client can still hand the pointer over another way.
          { files: result.files, pointer: result.pointer, warnings: result.warnings },
        );
      }
      return { ...result, deliveredTo: target.id };
    }),
  ];
}

function withoutUndefined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
