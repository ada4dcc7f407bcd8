/**
 * The review queue, the IDE bridge's state and the editor side of the bridge on the client API:
 * `review.*`, `ide.*`, `editor.*` (reviewContract.ts documents each).
 */
import { resolve } from 'node:path';
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
import { isOutsideWorkspace } from '../review/workspacePaths.ts';
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

  return {
    'review.list': (params) => queue.list(params),
    'review.get': async ({ id }) => await queue.get(id),
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
          return await paste(session, `@${filePath}${lines} `);
        }
      }
      return await paste(session, text!);
    },
    'editor.readFile': async ({ path }): Promise<EditorFile> => {
      const normalized = resolve(path);
      const file = await readFileLimited(normalized, 'the file');
      if (!file) throw new ApiError('NOT_FOUND', `no such file: ${normalized}`);
      editors.noteDiskMtime(normalized, file.mtimeMs);
      return {
        path: normalized,
        contents: file.content.text,
        binary: file.content.isBinary ? { bytes: file.content.size } : null,
        size: file.content.size,
        mtimeMs: file.mtimeMs,
        languageId: languageIdFor(normalized),
        outsideWorkspace: await isOutsideWorkspace(normalized, deps.workspaceFolders),
      };
    },
    'editor.saveFile': async ({ path, contents, expectedMtimeMs }) => {
      const normalized = resolve(path);
      const written = await writeFileAtomically(normalized, contents, { expectedMtimeMs });
      editors.noteDiskMtime(normalized, written.mtimeMs);
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
 * Put text into a pane's input line without pressing Enter, whatever the text holds:
 * - control characters are dropped (but tab, and line breaks handled below): an ESC, ^C or ^U
 *   in a selection would otherwise drive the program (end a bracketed paste early, kill the line);
 * - when the program asked for bracketed paste (Claude Code's prompt does), the text goes as one
 *   paste, line breaks as CR, as xterm.js sends a person's paste: the program keeps them as text;
 * - otherwise each line break would be Enter and run a line as a command: they are joined into
 *   spaces instead. The text still lands where the person sent it, nothing runs, and they see it
 *   before pressing Enter; refusing would make "Send to Claude" useless at a plain shell prompt.
 * Which of the two is decided by the pane's screen mirror; when it cannot tell, nothing is sent.
 */
async function paste(session: ReturnType<PtyHost['require']>, text: string): Promise<{ deliveredAs: 'paste'; newlinesCollapsed?: true }> {
  const clean = withoutControlCharacters(text);
  if (clean.trim().length === 0) throw new ApiError('INVALID_PARAMS', 'nothing to send: the text is empty once control characters are removed');
  let bracketed: boolean;
  try {
    bracketed = (await session.readScreen()).bracketedPaste;
  } catch (error) {
    throw new ApiError('INTERNAL', `nothing was sent: cannot tell whether the program in terminal ${session.id} accepts a multi-line paste (its screen mirror failed: ${(error as Error).message})`);
  }
  if (session.exitStatus) throw new ApiError('TERMINAL_EXITED', `terminal ${session.id} has exited`);
  if (bracketed) {
    session.write(pasteStart + clean.replace(/\n/g, '\r') + pasteEnd);
    return { deliveredAs: 'paste' };
  }
  const oneLine = clean.replace(/[ \t]*\n[ \t]*/g, ' ');
  session.write(oneLine);
  return oneLine === clean ? { deliveredAs: 'paste' } : { deliveredAs: 'paste', newlinesCollapsed: true };
}

/**
 * Text with line breaks as `\n` and without other control characters: C0 but tab, DEL, and C1
 * (which 8-bit terminals read as ESC sequences; CSI is U+009B). ESC goes with them, so no
 * bracketed-paste end marker can survive inside the text.
 */
export function withoutControlCharacters(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '');
}
