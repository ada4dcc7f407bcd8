/**
 * The user's search box → an FTS5 MATCH expression, and matched words → snippet segments.
 *
 * What people type is words, not FTS5 syntax: `"unbalanced`, `foo AND`, `*`, `NEAR(` must search
 * for those words rather than fail. So the input is cut into terms (a balanced "quoted phrase", or
 * a word), each term is reduced to the tokens FTS5's unicode61 tokenizer would see (runs of
 * letters and digits), and every term becomes a quoted FTS5 phrase. Only letters and digits ever
 * reach the expression, so no operator, quote or bracket can; the terms combine with AND.
 *
 * No prefix search (`compil*` searches the word "compil"): without a prefix index FTS5 merges the
 * doclists of every word with that prefix, which over a gigabyte of output takes far longer than
 * the 50 ms a search may take (bench history-search), and a prefix index would double the index.
 */
import type { Snippet } from '../../common/api/historyContract.ts';

/** Letters and digits: what the unicode61 tokenizer keeps as token characters. */
const tokenPattern = /[\p{L}\p{N}]+/gu;
const snippetTokenPattern = /[\p{L}\p{N}]+/gu;

export interface SearchTerm {
  /** Normalized tokens (lower case, diacritics removed), matched as a phrase. */
  tokens: string[];
}

export interface ParsedQuery {
  terms: SearchTerm[];
  /** The MATCH expression; null when the query holds no searchable word (then nothing matches). */
  match: string | null;
}

export function parseSearchQuery(input: string): ParsedQuery {
  const terms: SearchTerm[] = [];
  const addTerm = (text: string) => {
    const tokens = tokenize(text).map((token) => token.normalized);
    if (tokens.length > 0) terms.push({ tokens });
  };
  let index = 0;
  while (index < input.length) {
    const char = input[index]!;
    if (/\s/u.test(char)) {
      index++;
      continue;
    }
    if (char === '"') {
      const close = input.indexOf('"', index + 1);
      if (close !== -1) {
        addTerm(input.slice(index + 1, close));
        index = close + 1;
        continue;
      }
      // An unbalanced quote is just a character: search the words after it.
      index++;
      continue;
    }
    let end = index;
    while (end < input.length && !/\s/u.test(input[end]!) && input[end] !== '"') end++;
    const word = input.slice(index, end);
    addTerm(word);
    index = end;
  }
  const match = terms.length === 0 ? null : terms.map((term) => `"${term.tokens.join(' ')}"`).join(' ');
  return { terms, match };
}

interface Token {
  start: number;
  end: number;
  normalized: string;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const found of text.matchAll(tokenPattern)) {
    tokens.push({ start: found.index, end: found.index + found[0].length, normalized: normalizeToken(found[0]) });
  }
  return tokens;
}

/** What unicode61 with `remove_diacritics 2` compares: case-folded, combining marks removed. */
export function normalizeToken(token: string): string {
  // Most words in terminal output are ASCII: skip the (slow) Unicode normalization for them.
  return asciiPattern.test(token) ? token.toLowerCase() : token.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

const asciiPattern = /^[\x00-\x7f]*$/;

function matchesTerm(token: string, terms: readonly SearchTerm[]): boolean {
  for (const term of terms) if (term.tokens.includes(token)) return true;
  return false;
}

/**
 * A window of about `contextTokens` words around the first match in `text`, as segments with the
 * matched words marked. Whitespace runs (line breaks of terminal output) become single spaces.
 */
export function buildSnippet(fullText: string, terms: readonly SearchTerm[], contextTokens: number): Snippet {
  const text = windowAroundMatch(fullText, terms, contextTokens);
  // Tokens are read only as far as needed: up to the first match and the window after it.
  const before = Math.floor(contextTokens / 3);
  const tokens: Token[] = [];
  let first = -1;
  let more = false;
  // Its own instance: `lastIndex` is left wherever the loop stops, and matchAll copies it.
  const pattern = snippetTokenPattern;
  pattern.lastIndex = 0;
  for (let found = pattern.exec(text); found !== null; found = pattern.exec(text)) {
    const token = { start: found.index, end: found.index + found[0].length, normalized: normalizeToken(found[0]) };
    if (first !== -1 && tokens.length >= Math.max(0, first - before) + contextTokens) {
      more = true;
      break;
    }
    tokens.push(token);
    if (first === -1 && matchesTerm(token.normalized, terms)) first = tokens.length - 1;
  }
  if (tokens.length === 0) return [{ text: collapse(text.slice(0, 200)), match: false }];
  if (first === -1) first = 0;
  const startToken = Math.max(0, first - before);
  const endToken = Math.min(tokens.length, startToken + contextTokens);
  const segments: Snippet = [];
  const push = (piece: string, match: boolean) => {
    if (piece.length === 0) return;
    const last = segments.at(-1);
    if (last && last.match === match) last.text += piece;
    else segments.push({ text: piece, match });
  };
  if (startToken > 0) push('…', false);
  let cursor = tokens[startToken]!.start;
  for (let index = startToken; index < endToken; index++) {
    const token = tokens[index]!;
    push(collapse(text.slice(cursor, token.start)), false);
    push(text.slice(token.start, token.end), matchesTerm(token.normalized, terms));
    cursor = token.end;
  }
  // Punctuation right after the last word (a closing quote, a colon) reads better kept.
  const trailing = text.slice(cursor, endToken < tokens.length ? tokens[endToken]!.start : more ? cursor : text.length);
  push(collapse(trailing).replace(/\s.*$/u, ''), false);
  if (endToken < tokens.length || more) push(' …', false);
  return segments;
}

/** Generous room for `contextTokens` words of terminal output on either side of a match. */
const charsPerToken = 24;

/**
 * Tokenizing a whole 8 KiB block per hit is what made snippets slow; a case-insensitive `indexOf`
 * of the terms finds where the match probably is, and only text around it is tokenized. Falls back
 * to the whole text when no term is found that way (accents that differ from the query's, say).
 */
function windowAroundMatch(text: string, terms: readonly SearchTerm[], contextTokens: number): string {
  const room = contextTokens * charsPerToken;
  if (text.length <= 3 * room) return text;
  const lower = text.toLowerCase();
  let best = -1;
  for (const term of terms) {
    const wanted = term.tokens[0]!;
    // The first occurrence that is a whole token (`cat` is not a match inside `concatenate`).
    for (let index = lower.indexOf(wanted); index !== -1 && (best === -1 || index < best); index = lower.indexOf(wanted, index + 1)) {
      const end = index + wanted.length;
      if ((index === 0 || !isWordChar(lower, index - 1)) && (end >= lower.length || !isWordChar(lower, end))) {
        best = index;
        break;
      }
    }
  }
  if (best === -1) return text;
  let start = Math.max(0, best - room);
  // Do not start inside a word: it would be shown cut.
  while (start > 0 && start < best && /[\p{L}\p{N}]/u.test(text[start - 1]!)) start++;
  return text.slice(start, Math.min(text.length, best + 2 * room));
}

function isWordChar(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  if (code < 0x80) return (code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
  return /[\p{L}\p{N}\p{M}]/u.test(text[index]!);
}

function collapse(text: string): string {
  return text.replace(/\s+/gu, ' ');
}
