import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReviewSource, ReviewSummary } from '../../../src/common/api/reviewContract.ts';
import {
  binaryLabel,
  decisionLabel,
  displayPath,
  fileName,
  formatAge,
  matchesQuery,
  sourceLabel,
  windowTitle,
} from '../../../renderer/features/review/reviewFormat.ts';
import { languageForId, languageForPath, languageLabel, loadLanguage, type LanguageKey } from '../../../renderer/features/review/languages.ts';

const source = (overrides: Partial<ReviewSource>): ReviewSource => ({
  kind: 'ide',
  name: 'Claude Code',
  terminalId: null,
  terminalName: null,
  tabName: null,
  ...overrides,
});

describe('review display paths', () => {
  it('shows paths relative to the workspace folder that holds them', () => {
    assert.deepEqual(displayPath('/work/app/src/index.ts', ['/work/app'], '/home/ada'), { text: 'src/index.ts', folder: null });
    assert.deepEqual(displayPath('/work/app/src/index.ts', ['/work/app/'], '/home/ada'), { text: 'src/index.ts', folder: null });
    // The deepest folder wins when folders nest; with several folders the folder is named.
    assert.deepEqual(displayPath('/work/app/pkg/a.ts', ['/work/app', '/work/app/pkg'], undefined), { text: 'a.ts', folder: 'pkg' });
  });

  it('shows paths outside every folder home-shortened', () => {
    assert.deepEqual(displayPath('/home/ada/notes.md', ['/work/app'], '/home/ada'), { text: '~/notes.md', folder: null });
    assert.deepEqual(displayPath('/work/application/x', ['/work/app'], undefined), { text: '/work/application/x', folder: null });
    assert.deepEqual(displayPath('/etc/hosts', [], '/home/ada'), { text: '/etc/hosts', folder: null });
  });

  it('names files on POSIX and Windows paths', () => {
    assert.equal(fileName('/a/b/c.ts'), 'c.ts');
    assert.equal(fileName('C:\\src\\main.rs'), 'main.rs');
  });
});

describe('review labels', () => {
  it('says who asked for the review', () => {
    assert.equal(sourceLabel(source({ terminalName: 'build' })), 'Claude Code in build');
    assert.equal(sourceLabel(source({})), "Claude Code (outside Switchboard's terminals)");
    assert.equal(sourceLabel(source({ kind: 'control', name: 'deploy-bot' })), 'deploy-bot over the control socket');
    assert.equal(sourceLabel(source({ kind: 'mcp', name: 'switchboard-mcp' })), 'switchboard-mcp via MCP');
  });

  it('formats ages', () => {
    const now = Date.UTC(2025, 0, 10, 12);
    assert.equal(formatAge(now - 5_000, now), 'just now');
    assert.equal(formatAge(now + 5_000, now), 'just now', 'a clock slightly ahead is not "in the future"');
    assert.equal(formatAge(now - 5 * 60_000, now), '5 min ago');
    assert.equal(formatAge(now - 3 * 3_600_000, now), '3 h ago');
    assert.equal(formatAge(now - 30 * 3_600_000, now), 'yesterday');
    assert.equal(formatAge(now - 4 * 86_400_000, now), '4 days ago');
    assert.match(formatAge(now - 40 * 86_400_000, now), /2024|Dec/);
  });

  it('puts the pending count in the window title', () => {
    assert.equal(windowTitle('Switchboard', 0), 'Switchboard');
    assert.equal(windowTitle('Switchboard', 2), '(2) Switchboard');
  });

  it('labels binary files with their exact size', () => {
    assert.equal(binaryLabel(1), 'binary file, 1 byte');
    assert.equal(binaryLabel(123456), 'binary file, 123,456 bytes');
  });

  it('labels decisions', () => {
    const decision = { decision: 'accepted' as const, by: 'you', at: 0, comment: null, edited: false };
    assert.equal(decisionLabel(decision), 'Accepted by you');
    assert.equal(decisionLabel({ ...decision, edited: true }), 'Accepted with edits by you');
    assert.equal(decisionLabel({ ...decision, decision: 'rejected', by: 'ada' }), 'Rejected by ada');
  });

  it('filters reviews by words in the title, path and requester', () => {
    const summary = { title: 'Fix the parser', path: '/work/app/src/parser.ts', source: source({ terminalName: 'build' }) } as ReviewSummary;
    assert.ok(matchesQuery(summary, ''));
    assert.ok(matchesQuery(summary, 'PARSER fix'));
    assert.ok(matchesQuery(summary, 'claude build'));
    assert.ok(!matchesQuery(summary, 'parser lexer'));
  });
});

describe('languages by file name', () => {
  it('maps extensions and well-known names', () => {
    const cases: [string, LanguageKey | null][] = [
      ['/a/index.ts', 'typescript'],
      ['/a/App.tsx', 'tsx'],
      ['/a/x.MJS', 'javascript'],
      ['/a/view.jsx', 'jsx'],
      ['/a/tool.py', 'python'],
      ['/a/package.json', 'json'],
      ['/a/README.md', 'markdown'],
      ['/a/app.css', 'css'],
      ['/a/index.html', 'html'],
      ['/a/main.rs', 'rust'],
      ['/a/main.go', 'go'],
      ['/a/ci.yml', 'yaml'],
      ['/a/lib.hpp', 'cpp'],
      ['/a/x.c', 'cpp'],
      ['/a/Main.java', 'java'],
      ['/a/q.sql', 'sql'],
      ['/a/icon.svg', 'xml'],
      ['C:\\src\\lib.rs', 'rust'],
      ['/a/.eslintrc', 'json'],
      ['/a/.bashrc', null],
      ['/a/Makefile', null],
      ['/a/notes.txt', null],
      ['/a/archive.tar.gz', null],
    ];
    for (const [path, expected] of cases) assert.equal(languageForPath(path), expected, path);
  });

  it('maps VS Code language ids and names languages', () => {
    assert.equal(languageForId('typescriptreact'), 'tsx');
    assert.equal(languageForId('plaintext'), null);
    assert.equal(languageLabel('cpp'), 'C/C++');
    assert.equal(languageLabel(null), 'Plain text');
  });

  it('loads every language package', async () => {
    const keys: LanguageKey[] = ['javascript', 'jsx', 'typescript', 'tsx', 'python', 'json', 'markdown', 'css', 'html', 'rust', 'go', 'yaml', 'cpp', 'java', 'sql', 'xml'];
    for (const key of keys) {
      const extension = await loadLanguage(key);
      assert.ok(extension, key);
      assert.equal(await loadLanguage(key), extension, `${key} is loaded once`);
    }
  });
});
