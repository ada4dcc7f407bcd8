import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { nullLogger } from '../../../../src/node/logger.ts';
import { MirrorHost, type MirrorMode, mirrorWorkerYoungGenerationMb } from '../../../../src/node/pty/mirrorHost.ts';
import { TerminalMirror } from '../../../../src/node/pty/terminalMirror.ts';
import { pollUntil } from '../../../helpers/poll.ts';

function write(mirror: { write(bytes: Uint8Array, chars: number): void }, data: string): void {
  mirror.write(Buffer.from(data), data.length);
}

test('the mirror worker runs with its young generation capped (a burst of new terminals does not grow it for good)', async () => {
  const host = new MirrorHost({ logger: nullLogger, mode: 'worker' });
  try {
    const limits = () => host.workerResourceLimits;
    assert.equal(limits(), undefined, 'no worker before the first mirror');
    const mirror = host.create({ cols: 20, rows: 3, scrollback: 10 });
    write(mirror, 'ready\r\n');
    assert.deepEqual((await mirror.readText()).lines.slice(0, 1), ['ready']);
    assert.equal(limits()?.maxYoungGenerationSizeMb, mirrorWorkerYoungGenerationMb);
  } finally {
    host.dispose();
  }
});

test('the mirror worker lets go of closed terminals’ scrollback soon after, even when nothing else runs', async () => {
  const host = new MirrorHost({ logger: nullLogger, mode: 'worker' });
  try {
    const keeper = host.create({ cols: 20, rows: 3, scrollback: 10 });
    write(keeper, 'ready\r\n');
    await keeper.readText();
    const held = async () => {
      const heap = await host.workerHeapStatistics();
      assert.ok(heap, 'the worker runs');
      return heap.used_heap_size + heap.external_memory;
    };
    const before = await held();
    const mirrors = Array.from({ length: 6 }, () => host.create({ cols: 120, rows: 30, scrollback: 2_000 }));
    for (const [index, mirror] of mirrors.entries()) {
      write(mirror, Array.from({ length: 2_500 }, (_, line) => `\x1b[3${line % 8}m${index}:${line}\x1b[0m ${'build output '.repeat(6)}\r\n`).join(''));
    }
    for (const mirror of mirrors) assert.equal((await mirror.readText({ scrollback: true })).lines.length, 2_030);
    const full = await held();
    // 12 000 lines of 120 cells (1.4 KB each as xterm keeps them).
    assert.ok(full - before > 12 * 1024 * 1024, `the scrollbacks take room: ${before} → ${full} bytes`);
    for (const mirror of mirrors) mirror.dispose();
    // The one mirror left is idle: nothing in the worker allocates from here on.
    await pollUntil(
      async () => {
        const now = await held();
        assert.ok(now < before + 4 * 1024 * 1024, `${now} bytes held, ${before} before the scrollbacks`);
        return true;
      },
      { what: "the worker's heap back near where it was", timeoutMs: 10_000, intervalMs: 100 },
    );
    assert.deepEqual((await keeper.readText()).lines.slice(0, 1), ['ready'], 'the mirror still open is untouched');
  } finally {
    host.dispose();
  }
});

for (const mode of ['worker', 'inline'] as MirrorMode[]) {
  describe(`MirrorHost (${mode})`, () => {
    test('parses writes in order, reports them parsed, and serializes the screen', async () => {
      const host = new MirrorHost({ logger: nullLogger, mode });
      try {
        let parsed = 0;
        const mirror = host.create({ cols: 20, rows: 3, scrollback: 100, onParsed: (chars) => (parsed += chars) });
        write(mirror, 'hello\r\n');
        write(mirror, '\x1b[31mré\x1b[0m😀');
        mirror.resize(30, 4);
        write(mirror, '\r\nafter resize');
        const text = await mirror.readText({ scrollback: true });
        assert.deepEqual(text.lines, ['hello', 'ré😀', 'after resize', '']);
        assert.equal(text.cols, 30);
        assert.equal(text.rows, 4);
        assert.equal(parsed, 'hello\r\n'.length + '\x1b[31mré\x1b[0m😀'.length + '\r\nafter resize'.length);
        const snapshot = await mirror.snapshot();
        assert.match(snapshot.data, /hello/);
        assert.equal(snapshot.cols, 30);
        mirror.dispose();
        await assert.rejects(mirror.snapshot(), /disposed/);
      } finally {
        host.dispose();
      }
    });

    test('a flood bigger than the ring arrives whole: the screen equals a full parse, and every char is acknowledged', async () => {
      const host = new MirrorHost({ logger: nullLogger, mode });
      const full = new TerminalMirror({ cols: 100, rows: 30, scrollback: 500 });
      try {
        let parsed = 0;
        let written = 0;
        const mirror = host.create({ cols: 100, rows: 30, scrollback: 500, onParsed: (chars) => (parsed += chars) });
        for (let block = 0; block < 250; block++) {
          const text = Array.from({ length: 1200 }, (_, line) => `\x1b[3${line % 8}m${block}:${line}\x1b[0m build output — ok ${'.'.repeat(line % 40)}\r\n`).join('');
          const bytes = Buffer.from(text);
          mirror.write(bytes, text.length);
          full.write(bytes, text.length);
          written += text.length;
          if (block % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
        }
        assert.ok(written > 12 * 1024 * 1024);
        assert.deepEqual(await mirror.readText({ scrollback: true }), await full.readText({ scrollback: true }));
        assert.equal((await mirror.snapshot()).data, (await full.snapshot()).data);
        await pollUntil(() => parsed === written, { what: 'every char acknowledged' });
      } finally {
        full.dispose();
        host.dispose();
      }
    });

    test('disposing the host rejects requests still waiting', async () => {
      const host = new MirrorHost({ logger: nullLogger, mode });
      const mirror = host.create({ cols: 20, rows: 3, scrollback: 100 });
      write(mirror, 'x'.repeat(100_000));
      const pending = mirror.snapshot();
      host.dispose();
      if (mode === 'worker') await assert.rejects(pending, /disposed/);
      else await pending.catch(() => {}); // the inline mirror may already have answered
    });
  });
}

describe('MirrorHost worker failure', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-mirror-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a dying worker fails its mirrors loudly and releases their flow-control debt', async () => {
    const script = join(dir, 'dyingWorker.mjs');
    writeFileSync(script, "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => { throw new Error('boom'); });\n");
    const host = new MirrorHost({ logger: nullLogger, mode: 'worker', workerPath: script });
    try {
      let released = 0;
      const mirror = host.create({ cols: 20, rows: 3, scrollback: 100, onParsed: (chars) => (released += chars) });
      write(mirror, 'some output');
      await pollUntil(() => released === 'some output'.length, { what: 'debt released after the worker died' });
      await assert.rejects(mirror.snapshot(), /terminal mirror failed: boom/);
      // Output that keeps coming after the failure is never left owing (it would pause the PTY for good).
      write(mirror, 'more output');
      assert.equal(released, 'some output'.length + 'more output'.length);
      // A mirror created afterwards gets a fresh worker (which dies the same way here).
      const next = host.create({ cols: 20, rows: 3, scrollback: 100 });
      await assert.rejects(next.readText(), /terminal mirror failed/);
    } finally {
      host.dispose();
    }
  });
});
