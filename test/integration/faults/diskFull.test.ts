/**
 * Fault: the disk fills up under the real app. `switchboard serve` runs with its whole data dir
 * (database, WAL, settings, audit log, layout) on a 2 MiB tmpfs; a pane floods about 4 MB.
 *
 * Checked: History's writes fail (SQLITE_FULL) and recording pauses — the browser client gets
 * `history.statusChanged` {state: paused, reason: …full…} (the History view's banner and the
 * sidebar dot show it: test/e2e/history.test.ts › "warns that recording is paused …") and the log
 * says `recording paused`; nothing crashes: the app answers `ping`, the flooded pane and a new one
 * keep working, an agent's `send` (written to the audit log on the same full disk) goes through;
 * once space is back, recording resumes by itself (within retryAfterFailureMs) into the same
 * session, and the app still shuts down cleanly. Mounting needs root: elsewhere the test is
 * skipped with the reason (test/integration/node/history/historyDiskFull.test.ts covers the
 * service with SQLite's max_page_count there).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HistoryConstants } from '../../../src/node/history/historyConstants.ts';
import { createTerminal, NdjsonClient, type Frame } from '../control/controlTestKit.ts';
import { type ApiSocket, openApi, startServe, type ServeProcess } from '../node/server/serveProcess.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTempHome, testEnv } from '../../helpers/tempHome.ts';
import { mountTmpfs, unmountTmpfs } from '../../helpers/tmpfs.ts';

describe('fault: the disk fills up under the running app', () => {
  const temp = createTempHome('sb-fault-full-');
  const emptyRenderer = join(temp.home, 'no-renderer');
  const filler = join(temp.dataDir, 'filler.bin');
  let mountRefused: string | null = 'not tried';
  let serve: ServeProcess | undefined;
  let client: NdjsonClient | undefined;
  let api: ApiSocket | undefined;

  before(() => {
    mkdirSync(emptyRenderer);
    mountRefused = mountTmpfs(temp.dataDir, '2m');
    // Room the test gives back later, so recording can resume.
    if (mountRefused === null) writeFileSync(filler, Buffer.alloc(768 * 1024, 1));
  });
  after(async () => {
    client?.close();
    api?.close();
    if (serve && serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL');
    await serve?.exited;
    // The app's files are closed once it has exited; the kernel may still need a moment.
    if (mountRefused === null) await unmountTmpfs(temp.dataDir);
    temp.dispose();
  });

  it('pauses recording and says so, keeps every pane and the socket working, and resumes recording once there is space', async (t) => {
    if (mountRefused !== null) {
      t.skip(`cannot mount a 2 MiB tmpfs for the data dir (needs root): ${mountRefused}`);
      return;
    }
    serve = await startServe({ args: ['--port', '0', temp.workspace], home: temp.home, dataDir: temp.dataDir, env: { SWITCHBOARD_RENDERER_DIR: emptyRenderer } });
    client = await NdjsonClient.connect(join(temp.dataDir, 'control.sock'));
    api = await openApi(serve.port, { Cookie: `switchboard_token_${serve.port}=${serve.token}`, Origin: `http://127.0.0.1:${serve.port}` });
    const status = async () => (await api!.call('history.status', {})).result as { state: string; reason: string | null };
    assert.equal((await status()).state, 'recording');

    const flooded = await createTerminal(client, testEnv(temp.home));
    const screenHas = async (id: string, text: string) => ((await client!.request({ cmd: 'readScreen', terminalId: id })).lines as string[]).some((line) => line.includes(text));
    // About 4 MB of output: twice the whole disk.
    await client.request({ cmd: 'send', terminalId: flooded, text: 'seq -f "flood line %g" 1 200000; echo flood-$((40+2))-done\r' });
    await pollUntil(async () => (await status()).state === 'paused', { what: 'recording to pause', timeoutMs: 60_000 });
    assert.match((await status()).reason ?? '', /full/i);
    const told = api.events.find((event) => event.event === 'history.statusChanged' && event.payload.state === 'paused');
    assert.ok(told, 'the UI was told: history.statusChanged');
    assert.match(told.payload.reason, /full/i);
    await pollUntil(() => /recording paused/.test(serve!.stderr()), { what: 'the log to say recording paused' });

    // Nothing crashed: the flood finishes in its pane, the socket answers, new panes and agents work.
    await pollUntil(() => screenHas(flooded, 'flood-42-done'), { what: 'the flood to finish in its pane', timeoutMs: 60_000 });
    const pinged = await client.request({ cmd: 'ping' });
    assert.equal(pinged.ok, true);
    const second = await createTerminal(client, testEnv(temp.home));
    const sent = await client.request({ cmd: 'send', terminalId: second, text: 'echo full-disk-$((6*7))\r', clientName: 'agent-on-a-full-disk' });
    assert.equal(sent.ok, true, sent.error);
    await pollUntil(() => screenHas(second, 'full-disk-42'), { what: 'a new pane working on the full disk' });
    assert.equal(serve.child.exitCode, null, 'the app is still running');

    rmSync(filler);
    await pollUntil(async () => (await status()).state === 'recording', { what: 'recording to resume by itself', timeoutMs: HistoryConstants.retryAfterFailureMs + 15_000 });
    assert.ok(api.events.some((event) => event.event === 'history.statusChanged' && event.payload.state === 'recording'), 'told it resumed');
    await client.request({ cmd: 'send', terminalId: flooded, text: 'echo after-$((3+4))-recovery\r' });
    const sessions = (await client.request({ cmd: 'history.list' })).sessions as Frame[];
    const session = sessions.find((candidate) => candidate.terminalId === flooded)!;
    assert.equal(session.live, true, 'the same session goes on');
    await pollUntil(
      async () => {
        let text = '';
        for (let offset = 0; ; ) {
          const read = await client!.request({ cmd: 'history.read', sessionId: session.id, offset });
          text += read.bytes;
          if (read.nextOffset <= offset || read.nextOffset >= read.totalSize) return text.includes('after-7-recovery');
          offset = read.nextOffset;
        }
      },
      { what: 'output after the recovery recorded', timeoutMs: 20_000 },
    );

    // What the full disk cost, for docs/reliability.md: output produced while recording was paused.
    const after = (await client.request({ cmd: 'history.get', sessionId: session.id })).session as Frame;
    const end = (await client.request({ cmd: 'history.read', sessionId: session.id, offset: 0 })).totalSize as number;
    console.log(`# disk full: ${end - after.byteCount} of ${end} bytes of the flooded pane not recorded while paused (${after.byteCount} recorded); the pane itself lost nothing`);

    serve.child.kill('SIGTERM');
    assert.equal((await serve.exited).code, 0, `a clean shutdown; stderr: ${serve.stderr().slice(-2000)}`);
  });
});
