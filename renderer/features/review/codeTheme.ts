/**
 * How code looks in diffs and file tabs. Every colour is a CSS variable (review.css defines them
 * per theme), so one CodeMirror theme serves dark and light and switches with `<html data-theme>`
 * without reconfiguring an editor.
 */
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import type { Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { tags as t } from '@lezer/highlight';

const editorTheme = EditorView.theme({
  '&': {
    height: '100%',
    color: 'var(--code-text)',
    backgroundColor: 'var(--code-bg)',
    fontSize: 'var(--code-font-size)',
  },
  '&.cm-focused': { outline: 'none' },
  '.cm-scroller': { fontFamily: 'var(--font-mono)', lineHeight: '1.6' },
  '.cm-content': { caretColor: 'var(--accent-strong)', padding: '6px 0' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--accent-strong)', borderLeftWidth: '2px' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection': {
    backgroundColor: 'var(--code-selection)',
  },
  '.cm-selectionMatch': { backgroundColor: 'var(--code-selection-match)' },
  '.cm-activeLine': { backgroundColor: 'var(--code-active-line)' },
  '.cm-gutters': {
    backgroundColor: 'var(--code-gutter-bg)',
    color: 'var(--text-faint)',
    border: 'none',
    borderRight: '1px solid var(--border)',
  },
  '.cm-lineNumbers .cm-gutterElement': { padding: '0 10px 0 14px', minWidth: '44px' },
  '.cm-activeLineGutter': { backgroundColor: 'transparent', color: 'var(--text-muted)' },
  '.cm-matchingBracket, .cm-nonmatchingBracket': { backgroundColor: 'var(--code-bracket)', outline: 'none' },
  '.cm-searchMatch': { backgroundColor: 'var(--code-search-match)', outline: '1px solid var(--warn)' },
  '.cm-searchMatch.cm-searchMatch-selected': { backgroundColor: 'var(--code-search-current)' },
  '.cm-panels': { backgroundColor: 'var(--bg-chrome)', color: 'var(--text)' },
  '.cm-panels.cm-panels-top': { borderBottom: '1px solid var(--border)' },
  '.cm-panels.cm-panels-bottom': { borderTop: '1px solid var(--border)' },
  '.cm-panel.cm-search': { padding: '6px 10px', fontFamily: 'var(--font-ui)', fontSize: '12px' },
  '.cm-panel.cm-search input, .cm-panel.cm-search button': { fontFamily: 'var(--font-ui)', fontSize: '12px' },
  '.cm-textfield': {
    backgroundColor: 'var(--bg-input)',
    border: '1px solid var(--border-strong)',
    borderRadius: 'var(--radius-s)',
    color: 'var(--text)',
    padding: '3px 6px',
  },
  '.cm-button': {
    backgroundImage: 'none',
    backgroundColor: 'var(--bg-raised)',
    border: '1px solid var(--border-strong)',
    borderRadius: 'var(--radius-s)',
    color: 'var(--text)',
  },
  '.cm-tooltip': {
    backgroundColor: 'var(--bg-raised)',
    border: '1px solid var(--border-strong)',
    borderRadius: 'var(--radius-m)',
    boxShadow: 'var(--shadow)',
  },
  '.cm-specialChar': { color: 'var(--danger)' },

  // ---- diffs (@codemirror/merge) ------------------------------------------------------------
  '&.cm-merge-a .cm-changedLine, .cm-deletedChunk': { backgroundColor: 'var(--diff-delete-line)' },
  '&.cm-merge-b .cm-changedLine, .cm-inlineChangedLine': { backgroundColor: 'var(--diff-insert-line)' },
  '&.cm-merge-a .cm-changedText, .cm-deletedChunk .cm-deletedText': { background: 'var(--diff-delete-text)', borderRadius: '2px' },
  '&.cm-merge-b .cm-changedText': { background: 'var(--diff-insert-text)', borderRadius: '2px' },
  '&.cm-merge-b .cm-deletedText': { background: 'var(--diff-delete-text)' },
  '.cm-deletedChunk': { paddingLeft: '0', color: 'var(--code-text)' },
  '.cm-deletedChunk .cm-deletedLine': { paddingLeft: '6px' },
  '.cm-changeGutter': { width: '3px', paddingLeft: '0' },
  '&.cm-merge-a .cm-changedLineGutter, .cm-deletedLineGutter': { background: 'var(--diff-delete-mark)' },
  '&.cm-merge-b .cm-changedLineGutter': { background: 'var(--diff-insert-mark)' },
  '.cm-collapsedLines': {
    padding: '4px 12px',
    color: 'var(--text-muted)',
    background: 'var(--code-collapsed-bg)',
    borderTop: '1px solid var(--border)',
    borderBottom: '1px solid var(--border)',
    fontFamily: 'var(--font-ui)',
    fontSize: '12px',
  },
  '.cm-collapsedLines:hover': { color: 'var(--accent-strong)' },
  // The merge view frames the text with "⦚", which common monospace fonts lack.
  '.cm-collapsedLines:before': { content: '"⋯"', marginInlineEnd: '8px' },
  '.cm-collapsedLines:after': { content: '"(click to show)"', marginInlineStart: '8px', color: 'var(--text-faint)' },
  '.cm-mergeSpacer': {
    backgroundImage:
      'repeating-linear-gradient(-45deg, transparent 0, transparent 5px, var(--code-spacer-stripe) 5px, var(--code-spacer-stripe) 6px)',
  },
});

/** Syntax colours: GitHub's palettes, through the --syntax-* variables. */
const highlightStyle = HighlightStyle.define([
  { tag: [t.keyword, t.modifier, t.controlKeyword, t.operatorKeyword, t.definitionKeyword, t.moduleKeyword, t.self], color: 'var(--syntax-keyword)' },
  { tag: [t.string, t.special(t.string), t.character, t.regexp, t.escape], color: 'var(--syntax-string)' },
  { tag: [t.number, t.bool, t.null, t.atom, t.unit], color: 'var(--syntax-constant)' },
  { tag: [t.comment, t.lineComment, t.blockComment, t.docComment], color: 'var(--syntax-comment)', fontStyle: 'italic' },
  { tag: [t.function(t.variableName), t.function(t.propertyName), t.function(t.definition(t.variableName))], color: 'var(--syntax-function)' },
  { tag: [t.typeName, t.className, t.namespace, t.standard(t.typeName)], color: 'var(--syntax-type)' },
  { tag: [t.propertyName, t.attributeName, t.labelName], color: 'var(--syntax-property)' },
  { tag: [t.definition(t.variableName), t.definition(t.propertyName)], color: 'var(--syntax-definition)' },
  { tag: [t.tagName, t.angleBracket], color: 'var(--syntax-tag)' },
  { tag: [t.meta, t.annotation, t.processingInstruction, t.documentMeta], color: 'var(--syntax-meta)' },
  { tag: [t.heading, t.strong], fontWeight: '650', color: 'var(--syntax-heading)' },
  { tag: t.emphasis, fontStyle: 'italic' },
  { tag: t.strikethrough, textDecoration: 'line-through' },
  { tag: [t.link, t.url], color: 'var(--syntax-string)', textDecoration: 'underline' },
  { tag: [t.operator, t.derefOperator], color: 'var(--syntax-operator)' },
  { tag: t.invalid, color: 'var(--danger)' },
  { tag: t.inserted, color: 'var(--diff-insert-mark)' },
  { tag: t.deleted, color: 'var(--diff-delete-mark)' },
]);

/** The look of every code editor in the app. */
export const codeTheme: Extension = [editorTheme, syntaxHighlighting(highlightStyle)];
