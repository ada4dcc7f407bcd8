/**
 * The review queue, the IDE bridge's state and the editor side of the bridge on the client API:
 * `review.*`, `ide.*`, `editor.*` (reviewContract.ts documents each).
 */
import { resolve, sep } from 'node:path';
import { ApiError } from '../../common/api/errors.ts';
import type { EditorFile } from '../../common/api/reviewContract.ts';
import type { IdeBridge } from '../ide/ideBridge.ts';
import type { EditorState } from '../ide/editorState.ts';
import { languageIdFor } from '../ide/languageIds.ts';
import type { ILogger } from '../logger.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import { readFileLimited } from '../review/fileContent.ts';
import { writeFileAtomically } from '../review/fileWriter.ts';
import type { ReviewQueue } from '../review/reviewQueue.ts';
import type { HubMethodHandlers } from './hubConnection.ts';

type ReviewMethodNames =
  | 'review.list'
  | 'review.get'
  | 'review.decide'
  | 'ide.getState'
  | 'ide.sendToClaude'
  | 'editor.readFile'
  | 'editor.saveFile'
  | 'editor.setOpenEditors'
  | 'editor.setSelection';

export interface ReviewMethodDeps {
  queue: ReviewQueue;
  bridge: IdeBridge;
  editors: EditorState;
  ptyHost: PtyHost;
  workspaceFolders: readonly string[];
  logger: ILogger;
  /** A file was written by the Hub: every client's tab of it takes the new contents. */
  onFileSaved(payload: { path: string; contents: string; mtimeMs: number }): void;
}

const pasteStart = '\x1b[200~';
const pasteEnd = '\x1b[201~';

export function createReviewMethods(deps: ReviewMethodDeps): Pick<HubMethodHandlers, ReviewMethodNames> {
  const { queue, bridge, editors, ptyHost } = deps;
  const folders = deps.workspaceFolders.map((folder) => resolve(folder));
  const outsideWorkspace = (path: string) => !folders.some((folder) => path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep));

  return {
    'review.list': (params) => queue.list(params),
    'review.get': ({ id }) => queue.get(id),
    // The person at this app (Electron window or browser tab) is "you"; a relay viewer is named.
    'review.decide': ({ id, decision, finalContents, comment }, context) =>
      queue.decide(id, { decision, finalContents, comment }, context.connection.peer.kind === 'person' ? 'you' : context.connection.peer.name),
    'ide.getState': () => bridge.state,
    'ide.sendToClaude': async ({ terminalId, path, lineStart, lineEnd, text }) => {
      const session = ptyHost.require(terminalId);
      if (session.exitStatus) throw new ApiError('TERMINAL_EXITED', `terminal ${terminalId} has exited`);
      if (path === undefined && text === undefined) throw new ApiError('INVALID_PARAMS', 'give a path (a file reference) or text to send');
      if (lineStart !== undefined && lineEnd !== undefined && lineEnd < lineStart) throw new ApiError('INVALID_PARAMS', 'lineEnd is before lineStart');
      if (path !== undefined) {
        const filePath = resolve(path);
        if (await bridge.atMention(terminalId, { filePath, lineStart, lineEnd })) return { deliveredAs: 'at_mentioned' as const };
        if (text === undefined) {
          // No Claude Code connected there: type the reference the way one would in its prompt (lines 1-based).
          const lines = lineStart === undefined ? '' : `#L${lineStart + 1}${lineEnd !== undefined && lineEnd !== lineStart ? `-${lineEnd + 1}` : ''}`;
          await paste(session, `@${filePath}${lines} `, deps.logger);
          return { deliveredAs: 'paste' as const };
        }
      }
      await paste(session, text!, deps.logger);
      return { deliveredAs: 'paste' as const };
    },
    'editor.readFile': async ({ path }): Promise<EditorFile> => {
      const normalized = resolve(path);
      const file = await readFileLimited(normalized, 'the file');
      if (!file) throw new ApiError('NOT_FOUND', `no such file: ${normalized}`);
      return {
        path: normalized,
        contents: file.content.text,
        binary: file.content.isBinary ? { bytes: file.content.size } : null,
        size: file.content.size,
        mtimeMs: file.mtimeMs,
        languageId: languageIdFor(normalized),
        outsideWorkspace: outsideWorkspace(normalized),
      };
    },
    'editor.saveFile': async ({ path, contents, expectedMtimeMs }) => {
      const normalized = resolve(path);
      const written = await writeFileAtomically(normalized, contents, { expectedMtimeMs });
      deps.onFileSaved({ path: normalized, contents, mtimeMs: written.mtimeMs });
      return { path: normalized, size: written.size, mtimeMs: written.mtimeMs };
    },
    'editor.setOpenEditors': ({ editors: open }) => {
      editors.setOpenEditors(open);
      return { ok: true as const };
    },
    'editor.setSelection': (report) => {
      editors.setSelection(report);
      return { ok: true as const };
    },
  };
}

/**
 * Put text into a pane's input line without pressing Enter: as a bracketed paste when the program
 * asked for one (Claude Code's prompt does), so newlines stay in the text instead of submitting it.
 */
async function paste(session: ReturnType<PtyHost['require']>, text: string, logger: ILogger): Promise<void> {
  let bracketed = false;
  try {
    bracketed = (await session.readScreen()).bracketedPaste;
  } catch (error) {
    logger.warn('terminal mirror unavailable; pasting as typed text', { id: session.id, error: (error as Error).message });
  }
  if (session.exitStatus) throw new ApiError('TERMINAL_EXITED', `terminal ${session.id} has exited`);
  // The body must not end the paste early (a paste-injection trick): drop any end marker in it.
  session.write(bracketed ? pasteStart + text.split(pasteEnd).join('') + pasteEnd : text);
}
