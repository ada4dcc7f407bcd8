/** The search box → FTS5 expression, and snippets, without a database. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildSnippet, parseSearchQuery } from '../../../../src/node/history/searchQuery.ts';

describe('parseSearchQuery', () => {
  it('quotes every word, so FTS5 operators and punctuation are just words', () => {
    assert.equal(parseSearchQuery('foo AND').match, '"foo" "and"');
    assert.equal(parseSearchQuery('NEAR(').match, '"near"');
    assert.equal(parseSearchQuery('OR NOT').match, '"or" "not"');
    assert.equal(parseSearchQuery('col:value').match, '"col value"');
    assert.equal(parseSearchQuery('npm-test').match, '"npm test"');
    assert.equal(parseSearchQuery('^start + {x}').match, '"start" "x"');
  });

  it('keeps balanced phrases and treats an unbalanced quote as a character', () => {
    assert.equal(parseSearchQuery('"hello world" again').match, '"hello world" "again"');
    assert.equal(parseSearchQuery('"unbalanced').match, '"unbalanced"');
    assert.equal(parseSearchQuery('a "b c" "d').match, '"a" "b c" "d"');
  });

  it('* is not an operator: a word with it is the word; a lone * searches nothing', () => {
    assert.equal(parseSearchQuery('compil*').match, '"compil"');
    assert.equal(parseSearchQuery('*').match, null);
    assert.equal(parseSearchQuery('***  ()').match, null);
    assert.equal(parseSearchQuery('* foo').match, '"foo"');
  });

  it('folds case and diacritics like the unicode61 tokenizer', () => {
    assert.deepEqual(parseSearchQuery('Ünïcödé ÉCOLE').terms, [
      { tokens: ['unicode'] },
      { tokens: ['ecole'] },
    ]);
  });
});

describe('buildSnippet', () => {
  it('marks the matched words in a window around the first match', () => {
    const text = `${'lorem ipsum '.repeat(40)}the zebrafish swam\n${'dolor sit '.repeat(40)}`;
    const snippet = buildSnippet(text, parseSearchQuery('zebrafish').terms, 10);
    const matched = snippet.filter((segment) => segment.match).map((segment) => segment.text);
    assert.deepEqual(matched, ['zebrafish']);
    assert.equal(snippet[0]!.text.startsWith('…'), true);
    assert.equal(snippet.at(-1)!.text.endsWith('…'), true);
    assert.ok(snippet.every((segment) => !segment.text.includes('\n')));
    assert.ok(snippet.map((segment) => segment.text).join('').includes('the zebrafish swam'));
  });

  it('marks every term of the query, ignoring case and accents, whole words only', () => {
    const snippet = buildSnippet('Compiling café module; CAFE compiled concatenate cat', parseSearchQuery('compiling cafe cat').terms, 24);
    assert.deepEqual(
      snippet.filter((segment) => segment.match).map((segment) => segment.text),
      ['Compiling', 'café', 'CAFE', 'cat'],
    );
  });
});

describe('parseSearchQuery after snippets', () => {
  it('is not affected by a snippet that stopped early (shared regex state)', () => {
    const long = 'word '.repeat(500) + 'needle ' + 'word '.repeat(500);
    buildSnippet(long, parseSearchQuery('needle').terms, 10);
    assert.equal(parseSearchQuery('compiling').match, '"compiling"');
  });
});
