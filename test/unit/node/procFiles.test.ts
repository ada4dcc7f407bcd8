import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import { readProcTextOffThread } from '../../../src/node/procFiles.ts';

describe('readProcTextOffThread', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  test('reads /proc files of any length whole, and many at once', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    try {
      // maps is many times the first 4 KiB read; the socket table is what dev-server detection reads.
      const paths = ['/proc/self/maps', '/proc/net/tcp', '/proc/self/cmdline'];
      const results = await Promise.all(Array.from({ length: 30 }, (_, index) => readProcTextOffThread(paths[index % paths.length]!)));
      for (const [index, text] of results.entries()) {
        const path = paths[index % paths.length]!;
        assert.ok(text !== null, path);
        if (path === '/proc/self/cmdline') assert.equal(text, readFileSync(path, 'utf8'));
        else {
          // Both change as things run: whole lines only, about as many as a read on the thread sees.
          assert.ok(text.endsWith('\n'), `${path} ends with a whole line`);
          const lines = text.split('\n').length;
          const direct = readFileSync(path, 'utf8').split('\n').length;
          assert.ok(Math.abs(lines - direct) < 40, `${path}: ${lines} lines against ${direct}`);
        }
        if (path === '/proc/net/tcp') {
          const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
          assert.ok(text.split('\n').some((line) => line.includes(` ${local} `) && line.includes(' 0A ')), `our listener ${local} in the table`);
          for (const line of text.split('\n').slice(1, -1)) assert.match(line, /^\s*\d+: [0-9A-F]{8}:[0-9A-F]{4} /);
        }
      }
      assert.ok(results[0]!.length > 4096 * 2, `maps is long enough to need a larger buffer (${results[0]!.length})`);
    } finally {
      server.close();
    }
  });

  test('null for a file that cannot be opened', async () => {
    assert.equal(await readProcTextOffThread('/proc/0/cmdline'), null);
    assert.equal(await readProcTextOffThread('/proc/self/no-such-file'), null);
  });
});
