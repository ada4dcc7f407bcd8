import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { readArgv } from '../../../../src/node/agents/agentProcess.ts';

const linux = process.platform === 'linux';

async function running(args: string[]) {
  const child = spawn('sleep', args, { stdio: 'ignore' });
  await once(child, 'spawn');
  return child;
}

describe('readArgv', { skip: !linux && 'reads /proc' }, () => {
  test('reads a command line, short or longer than one read, and many at once', async () => {
    // `sleep 30 <padding>` fails at once on the padding; `sleep 30s 1` sleeps 31 s with any suffix digits.
    const short = await running(['30']);
    const long = await running(['30', `${'0'.repeat(9000)}1`]);
    const exact = await running(['30', `${'0'.repeat(4096 - 'sleep\0'.length - '30\0'.length - 2)}1`]);
    try {
      assert.deepEqual(await readArgv(short.pid!), ['sleep', '30']);
      const longArgv = await readArgv(long.pid!);
      assert.equal(longArgv?.length, 3);
      assert.equal(longArgv?.[2]?.length, 9001, 'a command line over the first read is read whole');
      const exactArgv = await readArgv(exact.pid!);
      assert.equal(exactArgv?.join('\0').length, 4095, 'a command line of exactly one read (its trailing NUL the 4096th byte)');
      // Concurrent reads never share a buffer.
      const many = await Promise.all(Array.from({ length: 40 }, (_, index) => readArgv([short.pid!, long.pid!, exact.pid!][index % 3]!)));
      many.forEach((argv, index) => assert.deepEqual(argv, [['sleep', '30'], longArgv, exactArgv][index % 3]));
    } finally {
      for (const child of [short, long, exact]) child.kill();
    }
  });

  test('null for a process that is gone and for a kernel thread', async () => {
    const child = await running(['30']);
    child.kill();
    await once(child, 'exit');
    assert.equal(await readArgv(child.pid!), null);
    // Outside a pid namespace pid 2 is kthreadd, whose command line is empty.
    if (readFileSync('/proc/2/comm', 'utf8').trim() === 'kthreadd') assert.equal(await readArgv(2), null);
  });
});
