import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheControlFor, contentTypeFor, resolveStaticFile } from '../../../../src/node/server/staticFiles.ts';
import { createTempHome } from '../../../helpers/tempHome.ts';

describe('static files of the renderer', () => {
  it('maps / to index.html and finds assets', async (t) => {
    const temp = createTempHome();
    t.after(() => temp.dispose());
    const root = join(temp.workspace, 'renderer');
    mkdirSync(join(root, 'assets'), { recursive: true });
    writeFileSync(join(root, 'index.html'), '<!doctype html>');
    writeFileSync(join(root, 'assets', 'app.js'), '1');
    const index = await resolveStaticFile(root, '/');
    assert.equal(index.kind, 'file');
    assert.equal((await resolveStaticFile(root, '/assets/app.js')).kind, 'file');
    assert.equal((await resolveStaticFile(root, '/assets/missing.js')).kind, 'not-found');
    assert.equal((await resolveStaticFile(root, '/assets')).kind, 'not-found');
  });

  it('never leaves the root: dot-dot, encoded dot-dot, backslashes, NUL, symlinks out', async (t) => {
    const temp = createTempHome();
    t.after(() => temp.dispose());
    const root = join(temp.workspace, 'renderer');
    mkdirSync(root, { recursive: true });
    writeFileSync(join(temp.workspace, 'secret.txt'), 'secret');
    symlinkSync(join(temp.workspace, 'secret.txt'), join(root, 'link.txt'));
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/..%5csecret.txt', '/a%00b', '/%E0%A4%A']) {
      const result = await resolveStaticFile(root, path);
      assert.notEqual(result.kind, 'file', path);
    }
    assert.equal((await resolveStaticFile(root, '/link.txt')).kind, 'bad-path');
  });

  it('names content types', () => {
    assert.equal(contentTypeFor('a/index.html'), 'text/html; charset=utf-8');
    assert.equal(contentTypeFor('x.JS'), 'text/javascript; charset=utf-8');
    assert.equal(contentTypeFor('x.woff2'), 'font/woff2');
    assert.equal(contentTypeFor('x.unknown'), 'application/octet-stream');
  });

  it('lets a browser keep the content-hashed assets for good, and fetch everything else again', () => {
    for (const path of ['/assets/index-Ci7S_kLE.js', '/assets/index-Vf-xrXBg.css', '/assets/hunkComposition-spyzhG8P.js', '/assets/index-Ci7S_kLE.js.map']) {
      assert.equal(cacheControlFor(path), 'private, max-age=31536000, immutable', path);
    }
    for (const path of ['/', '/index.html', '/icon.svg', '/assets/app.js', '/assets/', '/other/index-Ci7S_kLE.js', '/assets/sub/index-Ci7S_kLE.js']) {
      assert.equal(cacheControlFor(path), 'no-cache', path);
    }
  });
});
