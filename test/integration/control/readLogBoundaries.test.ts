/**
 * `readLog` slices start and end on escape-sequence (and UTF-8) boundaries: a cut never shows part
 * of a sequence, and never the shell-integration nonce of a prompt mark (issue 16). Real bash with
 * Switchboard's shell integration, real colours, over the real socket.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stripAnsi } from '../../../src/common/terminal/ansiStrip.ts';
import { createTerminal, type NdjsonClient, shells, startTestHub, type TestHub, waitForIntegration } from './controlTestKit.ts';

describe('readLog cuts only at escape-sequence boundaries', () => {
  let t: TestHub;
  let client: NdjsonClient;
  let id = '';
  /** Everything the terminal printed, raw and stripped, while it sits idle at its prompt. */
  let raw = '';
  let plain = '';
  let nonce = '';

  before(async () => {
    t = await startTestHub();
    client = await t.connect();
    // The colours come from a variable, so the echo of the typed command holds no `[31m` of its own.
    id = await createTerminal(client, t.env, { ...shells.bashIntegrated, env: { ...t.env, COLORS: '\\033[31mred\\033[0m \\033[1;32mgrün\\033[0m' } });
    await waitForIntegration(client, id);
    const ran = await client.request({ cmd: 'exec', terminalId: id, command: `printf '%b\\n' "$COLORS"` });
    assert.equal(ran.ok, true, ran.error);
    await client.request({ cmd: 'wait', terminalId: id, idleMs: 300, timeoutMs: 5000 });
    raw = (await client.request({ cmd: 'readLog', terminalId: id, offset: 0, strip: false })).bytes;
    plain = (await client.request({ cmd: 'readLog', terminalId: id, offset: 0 })).bytes;
    nonce = /\x1b\]633;A;([0-9a-f]{8,})\x07/.exec(raw)?.[1] ?? '';
    assert.ok(nonce.length > 0, `the prompt marks carry a nonce: ${JSON.stringify(raw)}`);
    assert.ok(raw.includes('\x1b[31mred\x1b[0m'), 'real SGR colours in the output');
    assert.ok(plain.includes('red grün'));
  });
  after(async () => {
    await t.dispose();
  });

  it('a tail of any length shows no part of a sequence and never the nonce, stripped or raw', async () => {
    const totalSize = Buffer.byteLength(raw);
    for (let limit = 1; limit <= Math.min(totalSize, 700); limit++) {
      const stripped = await client.request({ cmd: 'readLog', terminalId: id, limit });
      assert.equal(stripped.totalSize, totalSize, 'the terminal printed nothing meanwhile');
      assert.ok(!stripped.bytes.includes(nonce), `limit ${limit} shows the nonce: ${JSON.stringify(stripped.bytes)}`);
      assert.ok(plain.endsWith(stripped.bytes), `limit ${limit} shows more than the plain text's tail: ${JSON.stringify(stripped.bytes)}`);
      assert.ok(stripped.offset >= totalSize - limit && stripped.nextOffset === totalSize);

      const rawTail = await client.request({ cmd: 'readLog', terminalId: id, limit, strip: false });
      assert.ok(raw.endsWith(rawTail.bytes));
      assert.ok(plain.endsWith(stripAnsi(rawTail.bytes)), `limit ${limit} starts inside a sequence: ${JSON.stringify(rawTail.bytes)}`);
    }
  });

  it('pages read with nextOffset end before a sequence they would cut, so they add up to the whole log', async () => {
    for (const strip of [false, true]) {
      let offset = 0;
      let joined = '';
      for (let pages = 0; offset < Buffer.byteLength(raw); pages++) {
        assert.ok(pages < 10_000, 'paging makes progress');
        const page = await client.request({ cmd: 'readLog', terminalId: id, offset, limit: 7, strip });
        // Raw pages start exactly where asked; a stripped one skips the rest of a sequence longer than a page.
        if (strip) assert.ok(page.offset >= offset);
        else assert.equal(page.offset, offset, 'each page starts where the last one ended');
        assert.ok(page.nextOffset > offset || page.nextOffset === page.totalSize);
        if (strip) assert.ok(!page.bytes.includes(nonce), `a page shows the nonce: ${JSON.stringify(page.bytes)}`);
        joined += page.bytes;
        offset = page.nextOffset;
      }
      assert.equal(joined, strip ? plain : raw);
    }
  });

  it('a stripped read from an offset inside a prompt mark starts after the mark', async () => {
    const inside = Buffer.byteLength(raw.substring(0, raw.lastIndexOf(nonce) + 4));
    const read = await client.request({ cmd: 'readLog', terminalId: id, offset: inside });
    assert.ok(!read.bytes.includes(nonce.substring(4)), JSON.stringify(read.bytes));
    assert.ok(read.offset > inside, 'the answer says where the slice really starts');
    assert.ok(plain.endsWith(read.bytes));
    const exact = await client.request({ cmd: 'readLog', terminalId: id, offset: inside, strip: false });
    assert.equal(exact.offset, inside, 'raw bytes from an offset the client chose start exactly there');
  });
});
