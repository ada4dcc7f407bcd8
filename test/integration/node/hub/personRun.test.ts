/**
 * `terminal.run`: a person's command typed through the exec runner ("Run and hand to agent…" into
 * a terminal they pick). Real bash with our integration and an rc that takes its time: the run is
 * asked for the instant the terminal exists and must land after the first prompt, once; a line the
 * person left half typed is never joined (refused, nothing typed); bad input is refused by name.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../../../../src/common/api/errors.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { Hub } from '../../../../src/node/hub.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createTempHome, testEnv } from '../../../helpers/tempHome.ts';

async function rejectsWith(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ApiError, `expected ApiError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.match(error.message, message);
    return true;
  });
}

describe('terminal.run (a person runs a command through exec)', () => {
  let temp: ReturnType<typeof createTempHome>;
  let hub: Hub;
  let person: LocalHubClient;
  const screens = new Map<string, string>();

  before(async () => {
    temp = createTempHome('sb-person-run-');
    // A slow rc, as pyenv/nvm make it: half a second before the first prompt.
    writeFileSync(join(temp.home, '.bashrc'), "sleep 0.5\nPS1='$ '\n");
    mkdirSync(join(temp.workspace, 'app'));
    hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false });
    await hub.start();
    person = createLocalHubClient(hub, { kind: 'person', name: 'you' });
    person.on('terminal.output', ({ id, data }) => screens.set(id, (screens.get(id) ?? '') + data));
  });

  after(async () => {
    person.dispose();
    await hub.shutdown();
    temp.dispose();
  });

  async function shell(name: string): Promise<string> {
    const info = await person.call('terminal.create', { file: '/bin/bash', cwd: temp.workspace, env: testEnv(temp.home), name });
    await person.call('terminal.attach', { id: info.id });
    return info.id;
  }

  const lastCommand = async (id: string) => (await person.call('terminal.list', {})).find((t) => t.id === id)?.lastCommand ?? null;

  it('types a subshell command the instant the terminal exists, after the rc, once, and its command is recorded with its exit code', async () => {
    const id = await shell('run-at-once');
    await person.call('terminal.run', { id, command: '(cd app && echo "in-$((6*7))-$(basename "$PWD")")' });
    await pollUntil(async () => (await lastCommand(id))?.exitCode === 0, { what: 'the command to end with exit 0', timeoutMs: 20_000 });
    const summary = await lastCommand(id);
    assert.equal(summary?.commandLine, '(cd app && echo "in-$((6*7))-$(basename "$PWD")")');
    const output = screens.get(id) ?? '';
    assert.equal(output.split('in-42-app').length - 1, 1, `printed once: ${JSON.stringify(output)}`);
  });

  it('never joins a line the person left half typed: refused as BUSY by name, nothing typed', async () => {
    const id = await shell('half-typed');
    await person.call('terminal.run', { id, command: 'true' }); // the shell is up and at its prompt
    await pollUntil(async () => (await lastCommand(id))?.commandLine === 'true', { what: 'the first command', timeoutMs: 20_000 });
    await person.call('terminal.write', { id, data: 'echo half' });
    await pollUntil(() => (screens.get(id) ?? '').endsWith('echo half'), { what: 'the half-typed line echoed', timeoutMs: 10_000 });
    await rejectsWith(person.call('terminal.run', { id, command: 'echo ran-$((2+2))' }), 'BUSY', /^half-typed has a line left half typed at its prompt: "echo half"\. Send or clear it there, then try again; nothing was typed\.$/);
    assert.doesNotMatch(screens.get(id) ?? '', /ran-/, 'nothing of the command was typed');
    // The person's own line is theirs: sent as they typed it.
    await person.call('terminal.write', { id, data: ' done\r' });
    await pollUntil(async () => (await lastCommand(id))?.commandLine === 'echo half done', { what: "the person's line to run as typed", timeoutMs: 10_000 });
  });

  it('cancelRun stops a run that waits for its turn: it is never typed, even once the line is cleared', async () => {
    const id = await shell('cancelled');
    await person.call('terminal.run', { id, command: 'true' });
    await pollUntil(async () => (await lastCommand(id))?.commandLine === 'true', { what: 'the first command', timeoutMs: 20_000 });
    await person.call('terminal.write', { id, data: 'echo half' });
    await pollUntil(() => (screens.get(id) ?? '').endsWith('echo half'), { what: 'the half-typed line echoed', timeoutMs: 10_000 });
    const waiting = person.call('terminal.run', { id, command: 'echo cancelled-$((3*3))' });
    // Another client's cancel is not this one's: it stops nothing.
    const other = createLocalHubClient(hub, { kind: 'person', name: 'other window' });
    assert.deepEqual(await other.call('terminal.cancelRun', { id }), { cancelled: 0 });
    other.dispose();
    assert.deepEqual(await person.call('terminal.cancelRun', { id }), { cancelled: 1 });
    await rejectsWith(waiting, 'BUSY', /cancelled before it was typed/);
    await person.call('terminal.write', { id, data: '\x15' }); // the person clears their line
    // Runs of a terminal go in order: had the cancelled one still waited, it would run first.
    await person.call('terminal.run', { id, command: 'echo after-$((1+1))' });
    await pollUntil(async () => (await lastCommand(id))?.commandLine === 'echo after-$((1+1))' && (await lastCommand(id))?.exitCode === 0, { what: 'the next run', timeoutMs: 20_000 });
    assert.doesNotMatch(screens.get(id) ?? '', /cancelled-9/, 'the cancelled run was never typed');
    assert.deepEqual(await person.call('terminal.cancelRun', { id }), { cancelled: 0 }, 'nothing left to cancel');
  });

  it('refuses a multi-line command, an unknown terminal and an exited one', async () => {
    await rejectsWith(person.call('terminal.run', { id: 't-none', command: 'true' }), 'NOT_FOUND', /t-none/);
    const id = await shell('ends');
    await rejectsWith(person.call('terminal.run', { id, command: 'echo a\necho b' }), 'INVALID_PARAMS', /one command line/);
    await person.call('terminal.run', { id, command: 'exit 4' });
    await pollUntil(async () => (await person.call('terminal.list', {})).find((t) => t.id === id)?.state === 'exited', { what: 'the shell to exit', timeoutMs: 20_000 });
    await rejectsWith(person.call('terminal.run', { id, command: 'true' }), 'TERMINAL_EXITED', /^ends has exited/);
  });
});
