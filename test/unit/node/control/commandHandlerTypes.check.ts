/**
 * Type-level tests of the server's handlers, checked by `npm run typecheck` (not run): a handler
 * is typed from the protocol table, so each `@ts-expect-error` below must fail to compile.
 */
import { defineCommand } from '../../../../src/node/control/commandRegistry.ts';

export const handlers = [
  defineCommand('readLog', (params) => ({ bytes: '', offset: params.offset ?? 0, nextOffset: 0, totalSize: 0, truncated: false, logPath: null })),
  // @ts-expect-error a handler that renames a result field (nextOffset → next) no longer compiles
  defineCommand('readLog', () => ({ bytes: '', offset: 0, next: 0, totalSize: 0, truncated: false, logPath: null })),
  // @ts-expect-error a handler that reads a param the table does not declare
  defineCommand('close', (params) => ({ alreadyClosed: params.terminalIds === undefined })),
  // @ts-expect-error a command that is not in the table cannot be defined
  defineCommand('list.all', () => ({})),
  // @ts-expect-error a refused claws command has no result: its handler can only throw
  defineCommand('wave.create', () => ({})),
];
