/**
 * A mirror worker that dies takes every running terminal's screen with it; each session builds a
 * new mirror from the output its ring still holds, so panes can attach and agents read the
 * screen again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { pollUntil } from '../../../helpers/poll.ts';
import { createTestHost, person } from './ptyTestKit.ts';

const realWorker = fileURLToPath(new URL('../../../../src/node/pty/mirrorWorker.ts', import.meta.url));

test('after the mirror worker dies, a running terminal gets a new mirror built from its ring', async (t0) => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-mirror-lost-'));
  t0.after(() => rmSync(dir, { recursive: true, force: true }));
  // The first worker this script starts dies on its first message; later ones are the real worker.
  const flag = join(dir, 'died-once');
  const script = join(dir, 'diesOnce.mjs');
  writeFileSync(
    script,
    `import { existsSync, writeFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
if (!existsSync(${JSON.stringify(flag)})) {
  writeFileSync(${JSON.stringify(flag)}, '');
  parentPort.once('message', () => { throw new Error('boom'); });
} else {
  await import(${JSON.stringify(realWorker)});
}
`,
  );
  const t = createTestHost({ mirrorWorkerPath: script });
  try {
    const session = await t.host.create({ file: 'bash', args: ['--norc', '--noprofile'], env: t.env, cols: 60, rows: 10, createdBy: person });
    session.write('for i in 1 2 3; do echo "line $i of the story"; done\r');
    // The worker dies at its first message; the session rebuilds its mirror from the ring.
    await pollUntil(async () => (await session.readScreen().catch(() => ({ lines: [] as string[] }))).lines.some((line) => line.includes('line 3 of the story')), {
      what: 'the screen read from a rebuilt mirror',
    });
    session.write('echo after-the-rebuild\r');
    await pollUntil(async () => (await session.readScreen()).lines.some((line) => line === 'after-the-rebuild'), { what: 'new output in the rebuilt mirror' });
    const attached = await session.attach({ lossless: false, onOutput: () => {} });
    assert.match(attached.snapshot, /line 1 of the story/);
    attached.dispose();
  } finally {
    t.dispose();
  }
});
