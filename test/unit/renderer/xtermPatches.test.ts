import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { xtermInternalsRead } from '../../../renderer/features/terminals/domRowReuse.ts';
import { renderPacingInternalsRead } from '../../../renderer/features/terminals/renderPacing.ts';
import { xtermPatches, xtermPatchesPlugin, xtermPrelude } from '../../../renderer/xtermPatches.ts';

const xtermModulePath = join(dirname(createRequire(import.meta.url).resolve('@xterm/xterm/package.json')), 'lib', 'xterm.mjs');

const modules = { rowReuseModule: '/app/renderer/features/terminals/domRowReuse.ts', renderPacingModule: '/app/renderer/features/terminals/renderPacing.ts' };

function transform(code: string, id: string): { code: string } | null {
  const hook = xtermPatchesPlugin(modules).transform as (code: string, id: string) => { code: string } | null;
  return hook(code, id);
}

describe('the xterm.js patches applied while bundling', () => {
  it('patch the installed xterm.js exactly where they name, and nothing else', () => {
    const original = readFileSync(xtermModulePath, 'utf8');
    const patched = transform(original, xtermModulePath);
    assert.ok(patched, 'the xterm module is transformed');
    for (const patch of xtermPatches) {
      assert.equal(original.split(patch.find).length, 2, `${patch.why}: its code is in xterm.js once`);
      assert.equal(patched.code.split(patch.replace).length, 2, `${patch.why}: applied once`);
    }
    const grown = xtermPatches.reduce((sum, patch) => sum + patch.replace.length - patch.find.length, 0);
    assert.ok(patched.code.startsWith(xtermPrelude(modules)), 'the code the patches call is imported first');
    assert.equal(patched.code.length - original.length, xtermPrelude(modules).length + grown);
  });

  it('find every xterm.js internal the row reuse and the render pacing read', () => {
    const original = readFileSync(xtermModulePath, 'utf8');
    for (const code of xtermInternalsRead) assert.ok(original.includes(code), `xterm.js no longer has \`${code}\` (renderer/features/terminals/domRowReuse.ts reads it)`);
    for (const code of renderPacingInternalsRead) assert.ok(original.includes(code), `xterm.js no longer has \`${code}\` (renderer/features/terminals/renderPacing.ts reads it)`);
  });

  it('leave every other module alone', () => {
    assert.equal(transform('export const x = 1;', '/work/node_modules/react/index.js'), null);
  });

  it('fail the build when xterm.js changed under them', () => {
    assert.throws(() => transform('export class DomRenderer { handleSelectionChanged(a, b, c) {} }', '/x/node_modules/@xterm/xterm/lib/xterm.mjs'), /xterm\.js patch "DOM renderer: .*not found exactly once.*renderer\/xtermPatches\.ts/);
  });
});
