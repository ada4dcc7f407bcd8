/** The local URLs found in a program's output, as dev servers print them. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findLocalUrls, PrintedUrlScanner } from '../../../../src/node/servers/printedUrls.ts';

describe('findLocalUrls', () => {
  it('reads the lines real dev servers print, colours and all', () => {
    assert.deepEqual(findLocalUrls('  \x1b[32m➜\x1b[39m  \x1b[1mLocal\x1b[22m:   \x1b[36mhttp://localhost:\x1b[1m5173\x1b[22m/\x1b[39m\r\n'), [
      { host: 'localhost', port: 5173, url: 'http://localhost:5173/' },
    ]);
    assert.deepEqual(findLocalUrls('Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ...'), [{ host: '0.0.0.0', port: 8000, url: 'http://localhost:8000/' }]);
    assert.deepEqual(findLocalUrls('ready - started server on [::]:3000, url: http://[::1]:3000'), [{ host: '::1', port: 3000, url: 'http://[::1]:3000/' }]);
    assert.deepEqual(findLocalUrls('Listening on https://127.0.0.1:8443/admin?x=1.'), [{ host: '127.0.0.1', port: 8443, url: 'https://127.0.0.1:8443/admin?x=1' }]);
  });

  it('takes the scheme’s port when none is printed, and leaves other hosts and bad ports out', () => {
    assert.deepEqual(findLocalUrls('see http://localhost/ and https://localhost'), [
      { host: 'localhost', port: 80, url: 'http://localhost:80/' },
      { host: 'localhost', port: 443, url: 'https://localhost:443/' },
    ]);
    assert.deepEqual(findLocalUrls('http://example.com:80/ http://192.168.1.4:3000/ http://localhost:99999/ http://localhostx:3000 http://localhost.example.com/ http://localhost:123456/ ftp://localhost:21'), []);
    assert.deepEqual(findLocalUrls('open http://localhost:3000.'), [{ host: 'localhost', port: 3000, url: 'http://localhost:3000/' }]);
  });
});

describe('PrintedUrlScanner', () => {
  it('finds a URL split across two batches, and holds one that ends where the output ends', () => {
    const scanner = new PrintedUrlScanner();
    assert.deepEqual(scanner.push('Local: http://localhost:51'), []);
    assert.equal(scanner.hasPending, true, 'the URL may go on');
    assert.deepEqual(scanner.push('73/\r\n'), [{ host: 'localhost', port: 5173, url: 'http://localhost:5173/' }]);
    assert.equal(scanner.hasPending, false);
    scanner.push('\r\nat http://127.0.0.1:9000');
    assert.deepEqual(scanner.takePending(), { host: '127.0.0.1', port: 9000, url: 'http://127.0.0.1:9000/' });
    assert.equal(scanner.takePending(), null);
  });

  it('finds a URL cut anywhere at the seam of two batches, the second one long', () => {
    const line = 'ready at http://localhost:8080/app\r\n';
    for (let cut = 1; cut < line.length - 1; cut++) {
      const scanner = new PrintedUrlScanner();
      const first = scanner.push(`${'log line\r\n'.repeat(40)}${line.slice(0, cut)}`);
      const second = scanner.push(`${line.slice(cut)}${'more output\r\n'.repeat(500)}`);
      assert.deepEqual([...first, ...second].map((url) => url.url).at(-1), 'http://localhost:8080/app', `cut at ${cut}`);
    }
  });

  it('looks no further than a short tail of past output', () => {
    const scanner = new PrintedUrlScanner();
    assert.equal(scanner.push('http://localhost:3000/\n').length, 1);
    scanner.push('x'.repeat(1000));
    assert.equal(scanner.push('y').length, 0);
  });
});
