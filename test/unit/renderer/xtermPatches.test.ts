import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { xtermPatchesPlugin } from '../../../renderer/xtermPatches.ts';

const xtermModulePath = join(dirname(createRequire(import.meta.url).resolve('@xterm/xterm/package.json')), 'lib', 'xterm.mjs');

function transform(code: string, id: string): { code: string } | null {
  const hook = xtermPatchesPlugin().transform as (code: string, id: string) => { code: string } | null;
  return hook(code, id);
}

describe('the xterm.js patches applied while bundling', () => {
  it('patch the installed xterm.js exactly where they name', () => {
    const original = readFileSync(xtermModulePath, 'utf8');
    const patched = transform(original, xtermModulePath);
    assert.ok(patched, 'the xterm module is transformed');
    assert.equal(patched.code.split('if(!(e&&i)&&!(this._rowFactory._selectionStart&&this._rowFactory._selectionEnd))return;').length, 2, 'the DOM renderer skips a none-to-none selection redraw, once');
    assert.equal(patched.code.length - original.length, 'if(!(e&&i)&&!(this._rowFactory._selectionStart&&this._rowFactory._selectionEnd))return;'.length, 'nothing else changes');
  });

  it('leave every other module alone', () => {
    assert.equal(transform('export const x = 1;', '/work/node_modules/react/index.js'), null);
  });

  it('fail the build when xterm.js changed under them', () => {
    assert.throws(() => transform('export class DomRenderer { handleSelectionChanged(a, b, c) {} }', '/x/node_modules/@xterm/xterm/lib/xterm.mjs'), /xterm\.js patch "DOM renderer: .*not found exactly once.*renderer\/xtermPatches\.ts/);
  });
});
