/**
 * The twelve tools the IDE bridge offers Claude Code, with the argument names and result shapes
 * of claude-ide.md (what VS Code's extension answers). Arguments are validated with zod; a bad
 * argument is a JSON-RPC -32602 naming the field (thrown by the bridge, not here). Results are
 * `{content: [{type: "text", text}]}`, most texts stringified JSON.
 *
 * Only `getDiagnostics` and `executeCode` are offered to the model by the CLI; the CLI itself
 * calls `openDiff` (every edit), `close_tab`, `closeAllDiffTabs` and `getDiagnostics`.
 */
import { basename, isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { OpenFileRequest, Range } from '../../common/api/reviewContract.ts';
import { ReviewConstants } from '../../common/constants.ts';
import { readFileLimited } from '../review/fileContent.ts';
import type { EditorState, IdeSelection } from './editorState.ts';
import { languageIdFor } from './languageIds.ts';

/** The per-client diff tabs (reviews) a tool call works on. */
export interface DiffTabs {
  /** Blocks until the review is decided or withdrawn; resolves with the openDiff result. */
  openDiff(args: { oldFilePath: string; newFilePath: string; newFileContents: string; tabName: string }, signal: AbortSignal): Promise<CallToolResult>;
  /** Close this client's pending review with that tab name; returns how many were closed (0 or 1). */
  closeTab(tabName: string): number;
  /** Close all of this client's pending reviews; returns how many. */
  closeAll(): number;
}

export interface IdeToolContext {
  readonly workspaceFolders: readonly string[];
  readonly editors: EditorState;
  readonly diffTabs: DiffTabs;
  /** Ask the UI to open a file tab. */
  openFile(request: OpenFileRequest): void;
  /**
   * Write a file tab's text to disk (saveDocument) and tell the UI it is clean. `expectedMtimeMs`:
   * the mtime the text is based on; a file with another mtime is not overwritten (INVALID_PARAMS).
   */
  saveEditorText(path: string, text: string, expectedMtimeMs: number | undefined): Promise<void>;
  readonly signal: AbortSignal;
}

export interface IdeTool<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly input: S;
  run(args: z.output<S>, context: IdeToolContext): Promise<CallToolResult>;
}

function defineTool<S extends z.ZodType>(tool: IdeTool<S>): IdeTool {
  return tool as unknown as IdeTool;
}

function text(body: string): CallToolResult {
  return { content: [{ type: 'text', text: body }] };
}

function json(value: unknown): CallToolResult {
  return text(JSON.stringify(value, null, 2));
}

function failure(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

const FilePath = z.string().min(1).max(ReviewConstants.maxPathChars).refine((path) => !path.includes('\0'), 'paths may not contain NUL characters');

/** Claude Code sends absolute paths; a relative one is taken from the first workspace folder. */
function absolute(path: string, context: IdeToolContext): string {
  return isAbsolute(path) ? resolve(path) : resolve(context.workspaceFolders[0]!, path);
}

function selectionResult(selection: IdeSelection): Record<string, unknown> {
  return { success: true, text: selection.text, filePath: selection.filePath, fileUrl: selection.fileUrl, selection: selection.selection };
}

export const ideTools: readonly IdeTool[] = [
  defineTool({
    name: 'openDiff',
    description:
      'Open a diff of a proposed file change for the user to review in Switchboard. Blocks until the user accepts (FILE_SAVED and the final contents, possibly edited by the user) or rejects (DIFF_REJECTED and the tab name).',
    input: z.object({
      old_file_path: FilePath.describe('The file as it is now (it may not exist yet).'),
      new_file_path: FilePath.describe('Where the new contents go.'),
      new_file_contents: z.string().describe('The proposed contents of the file.'),
      tab_name: z.string().min(1).max(1000).describe('A name for the review; close_tab closes it by this name.'),
    }),
    run: (args, context) =>
      context.diffTabs.openDiff(
        { oldFilePath: absolute(args.old_file_path, context), newFilePath: absolute(args.new_file_path, context), newFileContents: args.new_file_contents, tabName: args.tab_name },
        context.signal,
      ),
  }),
  defineTool({
    name: 'close_tab',
    description: 'Close a diff review by its tab name (a pending one is withdrawn). Answers TAB_CLOSED, also when no such tab is open.',
    input: z.object({ tab_name: z.string().max(1000) }),
    async run(args, context) {
      context.diffTabs.closeTab(args.tab_name);
      return text('TAB_CLOSED');
    },
  }),
  defineTool({
    name: 'closeAllDiffTabs',
    description: "Close every diff review this client opened that is still pending. Other clients' reviews stay.",
    input: z.object({}),
    async run(_args, context) {
      return text(`CLOSED_${context.diffTabs.closeAll()}_DIFF_TABS`);
    },
  }),
  defineTool({
    name: 'openFile',
    description: 'Open a file in a Switchboard file tab, optionally selecting a line range (1-based startLine/endLine) or the text from startText to endText.',
    input: z.object({
      filePath: FilePath,
      preview: z.boolean().optional(),
      startLine: z.number().int().min(0).optional(),
      endLine: z.number().int().min(0).optional(),
      startText: z.string().max(ReviewConstants.maxSelectionChars).optional(),
      endText: z.string().max(ReviewConstants.maxSelectionChars).optional(),
      selectToEndOfLine: z.boolean().optional(),
      makeFrontmost: z.boolean().optional(),
    }),
    async run(args, context) {
      const path = absolute(args.filePath, context);
      let file;
      try {
        file = await readFileLimited(path, 'the file');
      } catch (error) {
        return failure((error as Error).message);
      }
      if (!file) return failure(`File not found: ${path}`);
      const contents = file.content.text ?? '';
      const selection = file.content.isBinary ? null : selectionFor(contents, args);
      const makeFrontmost = args.makeFrontmost ?? true;
      context.openFile({ path, selection, preview: args.preview ?? false, focus: makeFrontmost });
      if (makeFrontmost) return text(`Opened file: ${path}`);
      return json({ success: true, filePath: path, languageId: languageIdFor(path), lineCount: contents.split('\n').length });
    },
  }),
  defineTool({
    name: 'getCurrentSelection',
    description: "The selection in the active file tab or diff view of Switchboard (text, file, 0-based range).",
    input: z.object({}),
    async run(_args, context) {
      const selection = context.editors.currentSelection;
      return json(selection ? selectionResult(selection) : { success: false, message: 'No active editor found' });
    },
  }),
  defineTool({
    name: 'getLatestSelection',
    description: 'The most recent non-empty selection the user made in Switchboard (a file tab, a diff view or a terminal pane).',
    input: z.object({}),
    async run(_args, context) {
      const selection = context.editors.latestSelection;
      return json(selection ? selectionResult(selection) : { success: false, message: 'No selection available' });
    },
  }),
  defineTool({
    name: 'getOpenEditors',
    description: 'The file tabs open in Switchboard.',
    input: z.object({}),
    async run(_args, context) {
      const tabs = context.editors.openEditors.map((editor) => ({
        uri: pathToFileURL(editor.path).href,
        isActive: editor.active,
        label: basename(editor.path),
        languageId: editor.languageId ?? languageIdFor(editor.path),
        isDirty: editor.dirty,
        isUntitled: false,
        fileName: editor.path,
      }));
      return json({ tabs });
    },
  }),
  defineTool({
    name: 'getWorkspaceFolders',
    description: "Switchboard's workspace folders.",
    input: z.object({}),
    async run(_args, context) {
      const folders = context.workspaceFolders.map((folder) => ({ name: basename(folder), uri: pathToFileURL(folder).href, path: folder }));
      return json({ success: true, folders, rootPath: context.workspaceFolders[0] ?? null });
    },
  }),
  defineTool({
    name: 'getDiagnostics',
    description: 'Language diagnostics (errors, warnings) for a file or for all files. Switchboard runs no language servers, so there are none to report.',
    input: z.object({ uri: z.string().max(ReviewConstants.maxPathChars + 16).optional() }),
    async run(args) {
      // No language server: an IDE without diagnostics answers with an empty list (per file when asked about one).
      if (args.uri === undefined) return json([]);
      return json([{ uri: normalizeUri(args.uri), diagnostics: [] }]);
    },
  }),
  defineTool({
    name: 'checkDocumentDirty',
    description: 'Whether a file open in a Switchboard file tab has unsaved changes.',
    input: z.object({ filePath: FilePath }),
    async run(args, context) {
      const path = absolute(args.filePath, context);
      const editor = context.editors.findEditor(path);
      if (!editor) return json({ success: false, message: `Document not open: ${args.filePath}` });
      return json({ success: true, filePath: path, isDirty: editor.dirty, isUntitled: false });
    },
  }),
  defineTool({
    name: 'saveDocument',
    description: 'Save a file open in a Switchboard file tab. Refused when the file changed on disk since the tab loaded it: the person decides then.',
    input: z.object({ filePath: FilePath }),
    async run(args, context) {
      const path = absolute(args.filePath, context);
      const editor = context.editors.findEditor(path);
      if (!editor) return json({ success: false, message: `Document not open: ${args.filePath}` });
      if (editor.dirty) {
        if (editor.text === undefined) return json({ success: false, filePath: path, saved: false, message: 'Failed to save document: the editor did not report its text' });
        try {
          // As VS Code: never silently write over a file that changed on disk since the tab read it.
          await context.saveEditorText(path, editor.text, context.editors.baseMtimeOf(editor));
        } catch (error) {
          return json({ success: false, filePath: path, saved: false, message: `Failed to save document: ${(error as Error).message}` });
        }
      }
      return json({ success: true, filePath: path, saved: true, message: 'Document saved successfully' });
    },
  }),
  defineTool({
    name: 'executeCode',
    description: 'Run code in a Jupyter kernel. Not supported by Switchboard: there is no notebook kernel.',
    input: z.object({ code: z.string() }),
    async run() {
      return failure('executeCode is not supported: Switchboard has no Jupyter kernel. Run code in a terminal instead.');
    },
  }),
];

export const ideToolsByName: ReadonlyMap<string, IdeTool> = new Map(ideTools.map((tool) => [tool.name, tool]));

/** A file URI as given, or a path turned into one. */
function normalizeUri(uri: string): string {
  if (uri.startsWith('file://')) {
    try {
      return pathToFileURL(fileURLToPath(uri)).href;
    } catch {
      return uri;
    }
  }
  return isAbsolute(uri) ? pathToFileURL(uri).href : uri;
}

/**
 * The range openFile selects: from the first line containing `startText` (searching from
 * `startLine` when both are given) to the end of the next `endText`, or lines startLine..endLine
 * (1-based, as the model sees them in file listings). null when nothing asks for a selection or the
 * text is not found (the file still opens).
 */
export function selectionFor(
  contents: string,
  args: { startLine?: number | undefined; endLine?: number | undefined; startText?: string | undefined; endText?: string | undefined; selectToEndOfLine?: boolean | undefined },
): Range | null {
  const lines = contents.split('\n');
  const lastLine = lines.length - 1;
  const clampLine = (oneBased: number) => Math.min(Math.max(oneBased - 1, 0), lastLine);
  if (args.startText !== undefined && args.startText.length > 0) {
    const fromLine = args.startLine !== undefined ? clampLine(args.startLine) : 0;
    const start = find(lines, args.startText, fromLine, 0);
    if (!start) return null;
    let end = advance(start, args.startText);
    if (args.endText !== undefined && args.endText.length > 0) {
      const found = find(lines, args.endText, end.line, end.character);
      if (found) end = advance(found, args.endText);
    }
    if (args.selectToEndOfLine) end = { line: end.line, character: lines[end.line]!.length };
    return { start, end };
  }
  if (args.startLine !== undefined) {
    const startLine = clampLine(args.startLine);
    const endLine = Math.max(startLine, clampLine(args.endLine ?? args.startLine));
    return { start: { line: startLine, character: 0 }, end: { line: endLine, character: lines[endLine]!.length } };
  }
  return null;
}

/** Where a text that starts at `from` ends. */
function advance(from: { line: number; character: number }, text: string): { line: number; character: number } {
  const parts = text.split('\n');
  if (parts.length === 1) return { line: from.line, character: from.character + text.length };
  return { line: from.line + parts.length - 1, character: parts.at(-1)!.length };
}

function find(lines: string[], needle: string, fromLine: number, fromCharacter: number): { line: number; character: number } | null {
  // Multi-line patterns are matched in the joined text and mapped back to a line and column.
  if (needle.includes('\n')) {
    const joined = lines.join('\n');
    let offset = 0;
    for (let line = 0; line < fromLine; line++) offset += lines[line]!.length + 1;
    const index = joined.indexOf(needle, offset + fromCharacter);
    if (index === -1) return null;
    const before = joined.slice(0, index).split('\n');
    return { line: before.length - 1, character: before.at(-1)!.length };
  }
  for (let line = fromLine; line < lines.length; line++) {
    const index = lines[line]!.indexOf(needle, line === fromLine ? fromCharacter : 0);
    if (index !== -1) return { line, character: index };
  }
  return null;
}
