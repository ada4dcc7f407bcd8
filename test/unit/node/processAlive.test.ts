import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import { isProcessAlive } from '../../../src/node/processAlive.ts';

describe('isProcessAlive', () => {
  test('a running process is alive, and not once it has exited and been reaped', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    await once(child, 'spawn');
    const pid = child.pid!;
    assert.equal(isProcessAlive(pid), true);
    child.kill('SIGKILL');
    await once(child, 'exit'); // node reaps it before 'exit'
    assert.equal(isProcessAlive(pid), false);
  });

  test('this process is alive; a pid past the kernel maximum is not', () => {
    assert.equal(isProcessAlive(process.pid), true);
    assert.equal(isProcessAlive(2 ** 22 + 1), false);
  });
});
