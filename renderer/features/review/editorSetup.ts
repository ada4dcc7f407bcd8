/**
 * The CodeMirror setup shared by review diffs and file tabs (a trimmed basicSetup: no folding or
 * autocompletion, which a review does not need), and how a selection is described to Claude Code.
 */
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, indentOnInput } from '@codemirror/language';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import { EditorState, type Extension } from '@codemirror/state';
import {
  drawSelection,
  dropCursor,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  rectangularSelection,
} from '@codemirror/view';
import type { Range } from '../../../src/common/api/reviewContract.ts';
import { codeTheme } from './codeTheme.ts';

export interface EditorSetupOptions {
  /** The person may type (a proposal, a file tab); otherwise the text can still be selected and copied. */
  editable: boolean;
  /** The separator this document is split and joined on (see hunkComposition's lineSeparatorOf). */
  lineSeparator: string;
  /** The accessible name of the text area ("Proposed contents"). */
  label: string;
  /**
   * A diff: the empty line after the file's final line break gets no number. An editor numbers it
   * (the cursor can go there); a diff shows the file's lines, and "a\n" has one.
   */
  diff?: boolean;
}

export function editorSetup({ editable, lineSeparator, label, diff = false }: EditorSetupOptions): Extension {
  return [
    EditorState.lineSeparator.of(lineSeparator),
    lineNumbers(diff ? { formatNumber: diffLineNumber } : {}),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    drawSelection(),
    dropCursor(),
    EditorState.allowMultipleSelections.of(true),
    bracketMatching(),
    highlightActiveLine(),
    highlightSelectionMatches(),
    rectangularSelection(),
    search({ top: true }),
    editable ? history() : [],
    editable ? indentOnInput() : [],
    EditorState.readOnly.of(!editable),
    keymap.of([...searchKeymap, ...(editable ? historyKeymap : []), ...defaultKeymap]),
    EditorView.contentAttributes.of({ 'aria-label': label }),
    codeTheme,
  ];
}

function diffLineNumber(lineNumber: number, state: EditorState): string {
  const afterLastBreak = lineNumber > 1 && lineNumber === state.doc.lines && state.doc.line(lineNumber).length === 0;
  return afterLastBreak ? '' : String(lineNumber);
}

/** The main selection of `state` as Claude Code sees one: its text and 0-based range. */
export function selectionOf(state: EditorState): { text: string; range: Range; empty: boolean; lineStart: number; lineEnd: number } {
  const { from, to, empty } = state.selection.main;
  const start = state.doc.lineAt(from);
  const end = state.doc.lineAt(to);
  // A selection that ends at the very start of a line does not take that line.
  const lastLine = !empty && to === end.from && end.number > start.number ? end.number - 1 : end.number;
  return {
    text: state.sliceDoc(from, to),
    range: { start: { line: start.number - 1, character: from - start.from }, end: { line: end.number - 1, character: to - end.from } },
    empty,
    lineStart: start.number - 1,
    lineEnd: lastLine - 1,
  };
}

/** The document offset of a 0-based position, clamped into the document. */
export function offsetOf(state: EditorState, position: { line: number; character: number }): number {
  const lineNumber = Math.min(Math.max(position.line + 1, 1), state.doc.lines);
  const line = state.doc.line(lineNumber);
  return Math.min(line.from + Math.max(position.character, 0), line.to);
}
