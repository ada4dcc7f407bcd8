/**
 * The History view's non-visual parts against a real Hub (real SQLite, real bash): the session
 * replay's load fails cleanly when the session went away, and the window's "don't record" marks
 * follow the Hub (seeded at start, dropped when the terminal closes).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultSettings } from '../../../src/common/api/contract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { Hub } from '../../../src/node/hub.ts';
import { nullLogger } from '../../../src/node/logger.ts';
import { HistoryService } from '../../../renderer/features/history/historyService.ts';
import { SessionReplay } from '../../../renderer/features/history/sessionReplay.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTempHome, testEnv } from '../../helpers/tempHome.ts';

const bash = { file: 'bash', args: ['--norc', '--noprofile'] };

describe('History view services through a real Hub', () => {
  let temp: ReturnType<typeof createTempHome>;
  let hub: Hub;
  let client: LocalHubClient;

  before(async () => {
    temp = createTempHome('sb-history-ui-');
    hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false });
    await hub.start();
    client = createLocalHubClient(hub, { kind: 'person', name: 'you' });
  });

  after(async () => {
    client.dispose();
    await hub.shutdown();
    temp.dispose();
  });

  it('shows a load failure, with no unhandled rejection, when the session was deleted before it opened', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const cast = '{"version": 2, "width": 80, "height": 24}\n[0.1, "o", "hello\\r\\n"]\n';
      const session = await client.call('history.import', { fileName: 'gone.cast', contents: cast });
      // Deleted between the list and the open: both the events and the commands are NOT_FOUND now.
      await client.call('history.delete', { ids: [session.id] });
      const replay = new SessionReplay({
        client,
        session,
        settings: defaultSettings,
        theme: {},
        searchDecorations: () => undefined,
        isViewerKey: () => false,
        createTerminal: () => assert.fail('no terminal is built for a session that failed to load'),
      });
      await replay.start();
      const state = replay.loadState.value;
      assert.equal(state.kind, 'failed');
      assert.match(state.kind === 'failed' ? state.message : '', new RegExp(session.id));
      assert.equal(replay.terminal.value, null);
      // Let the process look for rejections nobody handled (it does so once the microtasks drain).
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(unhandled, []);
      replay.dispose();
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('keeps the "don\'t record" marks: seeded from the Hub at start, following changes, dropped when the terminal closes', async () => {
    const secret = await client.call('terminal.create', { ...bash, env: testEnv(temp.home), name: 'secret' });
    await client.call('history.setRecording', { terminalId: secret.id, record: false });

    // A window that opens after the mark was set still shows it.
    const errors: string[] = [];
    const service = new HistoryService(client, (title, error) => errors.push(`${title}: ${String(error)}`));
    await service.start();
    assert.deepEqual([...service.notRecorded.value], [secret.id]);
    assert.equal(service.isRecorded(secret.id), false);

    // Marked and unmarked elsewhere (another window, an agent): the event keeps it in step.
    const other = await client.call('terminal.create', { ...bash, env: testEnv(temp.home), name: 'other' });
    await client.call('history.setRecording', { terminalId: other.id, record: false });
    await pollUntil(() => service.notRecorded.value.has(other.id), { what: 'the other terminal to be marked' });
    await client.call('history.setRecording', { terminalId: other.id, record: true });
    await pollUntil(() => !service.notRecorded.value.has(other.id), { what: 'the other terminal to be recorded again' });

    // Closing the terminal drops its mark, here and in the Hub's status.
    await client.call('terminal.close', { id: secret.id });
    await pollUntil(() => !service.notRecorded.value.has(secret.id), { what: 'the closed terminal\'s mark to go', timeoutMs: 20_000 });
    assert.deepEqual((await client.call('history.status', {})).notRecorded, []);
    await client.call('terminal.close', { id: other.id });
    service.dispose();
    assert.deepEqual(errors, []);
  });
});
