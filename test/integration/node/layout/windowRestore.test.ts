/**
 * Restore after restart, on a real Hub with real PTYs: the window's tabs, splits, names and cwds
 * are saved while the app runs and come back as fresh shells when a new Hub starts on the same
 * data dir, each pane marked "restored" with a banner above its prompt.
 */
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Layout } from '../../../../src/common/api/contract.ts';
import { createLocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { Hub } from '../../../../src/node/hub.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { windowStateFilePath } from '../../../../src/node/layout/windowState.ts';
import { ControlClient, ControlClientError } from '../../../../src/cli/controlClient.ts';
import { runInProcess } from '../../cli/cliHarness.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createTempHome, testEnv } from '../../../helpers/tempHome.ts';

type Temp = ReturnType<typeof createTempHome>;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startHub(temp: Temp): Promise<Hub> {
  // Restored panes start like a new window's: with the app's own environment. Give it the temp
  // HOME, so the user's real rc files (slow pyenv hooks and the like) stay out of the test.
  Object.assign(process.env, testEnv(temp.home));
  writeFileSync(join(temp.home, '.bashrc'), "PS1='$ '\n");
  const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false });
  await hub.start();
  cleanups.push(() => hub.shutdown());
  return hub;
}

function paneIds(layout: Layout): string[] {
  const ids: string[] = [];
  const walk = (node: Layout['tabs'][number]['root']): void => {
    if (node.type === 'pane') ids.push(node.terminalId);
    else node.children.forEach(walk);
  };
  layout.tabs.forEach((tab) => walk(tab.root));
  return ids;
}

async function screenText(hub: Hub, id: string): Promise<string> {
  return (await hub.ptyHost.require(id).readScreen({ scrollback: true })).lines.join('\n');
}

describe('window restore after a restart', () => {
  it('brings back tabs, splits, names and cwds as fresh shells marked restored', async () => {
    const temp = createTempHome('sb-restore-');
    cleanups.push(() => temp.dispose());
    const project = join(temp.workspace, 'project');
    mkdirSync(project);

    const first = await startHub(temp);
    const person = createLocalHubClient(first, { kind: 'person', name: 'you' });
    const left = await person.call('terminal.create', { env: testEnv(temp.home), name: 'build', cwd: project });
    const right = await person.call('terminal.create', { env: testEnv(temp.home), name: 'tests' });
    const other = await person.call('terminal.create', { env: testEnv(temp.home), name: 'logs' });
    const layout: Layout = {
      tabs: [
        { id: 'tab-a', root: { type: 'split', direction: 'row', sizes: [30, 70], children: [{ type: 'pane', terminalId: left.id }, { type: 'pane', terminalId: right.id }] } },
        { id: 'tab-b', title: 'Logs', root: { type: 'pane', terminalId: other.id } },
      ],
      activeTabId: 'tab-b',
      focusedTerminalId: right.id,
    };
    await person.call('terminal.write', { id: left.id, data: 'echo "before-$((20+1))"\r' });
    await pollUntil(async () => (await screenText(first, left.id)).includes('before-21'), { what: 'output before the restart' });
    await person.call('layout.set', layout);
    await pollUntil(() => {
      try {
        return JSON.parse(readFileSync(windowStateFilePath(temp.dataDir), 'utf8')).layout.tabs.length === 2;
      } catch {
        return false;
      }
    }, { what: 'the window state to be saved' });
    assert.equal(statSync(windowStateFilePath(temp.dataDir)).mode & 0o777, 0o600);
    person.dispose();
    await first.shutdown();

    const second = await startHub(temp);
    const restored = createLocalHubClient(second, { kind: 'person', name: 'you' });
    cleanups.push(() => restored.dispose());
    const state = await restored.call('app.getState', {});
    assert.ok(state.layout, 'the layout came back');
    const ids = paneIds(state.layout);
    assert.equal(ids.length, 3);
    assert.ok(ids.every((id) => ![left.id, right.id, other.id].includes(id)), 'new terminals, new ids');
    const tabA = state.layout.tabs[0]!;
    assert.equal(tabA.root.type, 'split');
    assert.deepEqual(tabA.root.type === 'split' && [tabA.root.direction, tabA.root.sizes], ['row', [30, 70]]);
    assert.equal(state.layout.tabs[1]!.title, 'Logs');
    assert.equal(state.layout.activeTabId, 'tab-b');
    assert.equal(state.layout.focusedTerminalId, ids[1]);

    const terminals = await restored.call('terminal.list', {});
    const byId = new Map(terminals.map((info) => [info.id, info]));
    assert.deepEqual(ids.map((id) => byId.get(id)?.name), ['build', 'tests', 'logs']);
    assert.equal(byId.get(ids[0]!)?.cwd, project, 'the pane starts in its old cwd');
    assert.equal(byId.get(ids[1]!)?.cwd, temp.workspace);
    for (const id of ids) assert.ok(byId.get(id)?.restoredFrom, `terminal ${id} is marked restored`);

    // The old last screen, then the banner, then a working shell.
    const screen = await pollUntil(async () => {
      const text = await screenText(second, ids[0]!);
      return text.includes('restored · ended') ? text : undefined;
    }, { what: 'the restored banner' });
    assert.ok(screen.indexOf('before-21') >= 0 && screen.indexOf('before-21') < screen.indexOf('restored · ended'), 'the last screen is above the banner');
    assert.equal(byId.get(ids[0]!)?.restoredFrom?.sessionId !== null, true, 'it names the previous session');
    // The tests pane printed only its prompt and got no input: nothing of it was kept, and the banner says so.
    await pollUntil(async () => (await screenText(second, ids[1]!)).includes('nothing of the previous session was recorded'), { what: 'the empty-session banner' });
    await restored.call('terminal.write', { id: ids[0]!, data: 'echo "alive-$((40+2))"\r' });
    await pollUntil(async () => (await screenText(second, ids[0]!)).includes('alive-42'), { timeoutMs: 30_000, what: 'the fresh shell to run a command' }).catch(async (error) => {
      throw new Error(`${(error as Error).message}\n--- screen ---\n${await screenText(second, ids[0]!)}`);
    });
  });

  it('falls back to the workspace when a saved cwd is gone, and ignores a broken state file', async () => {
    const temp = createTempHome('sb-restore-');
    cleanups.push(() => temp.dispose());
    const doomed = join(temp.workspace, 'doomed');
    mkdirSync(doomed);
    const first = await startHub(temp);
    const person = createLocalHubClient(first, { kind: 'person', name: 'you' });
    const pane = await person.call('terminal.create', { env: testEnv(temp.home), cwd: doomed });
    await person.call('layout.set', { tabs: [{ id: 'only', root: { type: 'pane', terminalId: pane.id } }], activeTabId: 'only', focusedTerminalId: null });
    person.dispose();
    await first.shutdown();
    rmSync(doomed, { recursive: true });

    const second = await startHub(temp);
    const [info] = second.ptyHost.list();
    assert.equal(info?.cwd, temp.workspace);
    await second.shutdown();

    writeFileSync(windowStateFilePath(temp.dataDir), '{"version":1,"layout":');
    const third = await startHub(temp);
    assert.deepEqual(third.ptyHost.list(), [], 'nothing restored from a broken file');
    const state = await createLocalHubClient(third).call('app.getState', {});
    assert.equal(state.layout, null);
  });

  it('keeps showing the old screen across restarts while the pane is left untouched', async () => {
    const temp = createTempHome('sb-restore-');
    cleanups.push(() => temp.dispose());
    const first = await startHub(temp);
    const person = createLocalHubClient(first, { kind: 'person', name: 'you' });
    const pane = await person.call('terminal.create', { env: testEnv(temp.home) });
    await person.call('terminal.write', { id: pane.id, data: 'echo "keep-$((3*3))"\r' });
    await pollUntil(async () => (await screenText(first, pane.id)).includes('keep-9'), { what: 'the output' });
    await person.call('layout.set', { tabs: [{ id: 'only', root: { type: 'pane', terminalId: pane.id } }], activeTabId: 'only', focusedTerminalId: null });
    person.dispose();
    await first.shutdown();

    for (const round of [1, 2]) {
      const hub = await startHub(temp);
      const [info] = hub.ptyHost.list();
      assert.ok(info, `round ${round}: the pane came back`);
      const text = await pollUntil(async () => {
        const screen = await screenText(hub, info.id);
        return screen.includes('restored · ended') ? screen : undefined;
      }, { what: `round ${round}: the banner` });
      assert.match(text, /keep-9/, `round ${round}: the old screen is still shown`);
      await hub.shutdown();
    }
  });

  it('restores nothing when the setting is off', async () => {
    const temp = createTempHome('sb-restore-');
    cleanups.push(() => temp.dispose());
    const first = await startHub(temp);
    const person = createLocalHubClient(first, { kind: 'person', name: 'you' });
    const pane = await person.call('terminal.create', { env: testEnv(temp.home) });
    await person.call('layout.set', { tabs: [{ id: 'only', root: { type: 'pane', terminalId: pane.id } }], activeTabId: 'only', focusedTerminalId: null });
    await person.call('settings.update', { restoreLayoutOnStart: false });
    person.dispose();
    await first.shutdown();

    const second = await startHub(temp);
    assert.deepEqual(second.ptyHost.list(), []);
  });
});

describe('choices that hold across a restart', () => {
  it('keeps "don\'t record this terminal": the restored pane records nothing and says so, restart after restart', async () => {
    const temp = createTempHome('sb-restore-');
    cleanups.push(() => temp.dispose());
    const first = await startHub(temp);
    const person = createLocalHubClient(first, { kind: 'person', name: 'you' });
    const secret = await person.call('terminal.create', { env: testEnv(temp.home), name: 'secret' });
    const recorded = await person.call('terminal.create', { env: testEnv(temp.home), name: 'recorded' });
    // Its shell ends before the restart; the pane stays on screen, and comes back.
    const ended = await person.call('terminal.create', { env: testEnv(temp.home), name: 'ended' });
    await person.call('layout.set', {
      tabs: [
        { id: 'a', root: { type: 'pane', terminalId: secret.id } },
        { id: 'b', root: { type: 'pane', terminalId: recorded.id } },
        { id: 'c', root: { type: 'pane', terminalId: ended.id } },
      ],
      activeTabId: 'a',
      focusedTerminalId: secret.id,
    });
    await person.call('terminal.write', { id: secret.id, data: 'echo "before-$((6*7))"\r' });
    await pollUntil(async () => (await screenText(first, secret.id)).includes('before-42'), { what: 'output before the choice' });
    // The record button's "Delete and stop recording".
    await person.call('history.setRecording', { terminalId: secret.id, record: false });
    await person.call('history.setRecording', { terminalId: ended.id, record: false });
    await person.call('terminal.write', { id: ended.id, data: 'exit\r' });
    await pollUntil(() => first.ptyHost.get(ended.id)?.info.state === 'exited', { what: 'the shell of "ended" to exit' });
    // Saved again while the pane shows its exit (a later layout change), it is still not to be recorded.
    await person.call('layout.set', {
      tabs: [
        { id: 'a', root: { type: 'pane', terminalId: secret.id } },
        { id: 'b', root: { type: 'pane', terminalId: recorded.id } },
        { id: 'c', title: 'Ended', root: { type: 'pane', terminalId: ended.id } },
      ],
      activeTabId: 'a',
      focusedTerminalId: secret.id,
    });
    person.dispose();
    await first.shutdown();

    for (const round of [1, 2]) {
      const hub = await startHub(temp);
      const client = createLocalHubClient(hub, { kind: 'person', name: 'you' });
      const terminals = await client.call('terminal.list', {});
      const pane = terminals.find((info) => info.name === 'secret');
      const other = terminals.find((info) => info.name === 'recorded');
      const endedPane = terminals.find((info) => info.name === 'ended');
      assert.ok(pane && other && endedPane, `round ${round}: the panes came back`);
      // What the window reads at start (the tab's record button and the pane's mark).
      const status = await client.call('history.status', {});
      assert.deepEqual(status.notRecorded.sort(), [pane.id, endedPane.id].sort(), `round ${round}: the restored panes are marked not recorded`);
      assert.equal(hub.history.isRecording(pane.id), false);
      assert.equal(hub.history.isRecording(endedPane.id), false);
      assert.equal(hub.history.isRecording(other.id), true, 'the other pane is recorded as before');
      await pollUntil(async () => (await screenText(hub, pane.id)).includes('not recorded in History'), { what: `round ${round}: the banner saying so` });

      const word = `after${round}-${round * 1000 + 7}`;
      await client.call('terminal.write', { id: pane.id, data: `echo "after${round}-$((${round * 1000}+7))"\r` });
      await client.call('terminal.write', { id: other.id, data: `echo "other${round}-$((${round}+1))"\r` });
      await pollUntil(async () => (await screenText(hub, pane.id)).includes(word), { what: `round ${round}: output of the unrecorded pane` });
      await pollUntil(async () => (await screenText(hub, other.id)).includes(`other${round}-${round + 1}`), { what: `round ${round}: output of the recorded pane` });
      hub.history.flush();
      hub.history.indexNow();
      assert.equal(hub.history.latestSessionOfTerminal(pane.id), null, `round ${round}: no session of the unrecorded pane`);
      assert.ok(hub.history.latestSessionOfTerminal(other.id), `round ${round}: the recorded pane has its session`);
      assert.deepEqual(hub.history.search(word), [], `round ${round}: its output is not searchable`);
      assert.ok(hub.history.search(`other${round}`).length > 0, `round ${round}: the other pane's output is`);
      client.dispose();
      await hub.shutdown();
    }
    const saved = JSON.parse(readFileSync(windowStateFilePath(temp.dataDir), 'utf8')) as { panes: Record<string, { name: string; notRecorded?: boolean }> };
    assert.deepEqual(
      Object.values(saved.panes).map((pane) => [pane.name, pane.notRecorded ?? false]),
      [
        ['secret', true],
        ['recorded', false],
        ['ended', true],
      ],
    );
  });
  it('keeps a token limited to a pane working after a restart, and says so when its terminal is gone', async () => {
    const temp = createTempHome('sb-restore-');
    cleanups.push(() => temp.dispose());
    const first = await startHub(temp);
    const person = createLocalHubClient(first, { kind: 'person', name: 'you' });
    const agentPane = await person.call('terminal.create', { env: testEnv(temp.home), name: 'agent' });
    await person.call('layout.set', { tabs: [{ id: 'only', root: { type: 'pane', terminalId: agentPane.id } }], activeTabId: 'only', focusedTerminalId: null });
    const cli = (hub: Hub, argv: string[], env: NodeJS.ProcessEnv = {}) => runInProcess([...argv, '--socket', hub.controlSocketPath], { env });
    const created = await cli(first, ['tokens', 'create', 'builder', '--scope', 'drive', '--terminal', 'agent', '--json']);
    assert.equal(created.status, 0, created.stderr);
    const { secret, token } = JSON.parse(created.stdout) as { secret: string; token: { id: string; terminals: string[] } };
    assert.deepEqual(token.terminals, [agentPane.id]);
    const before = await cli(first, ['send', 'agent', 'echo "token-$((1+1))"', '--token', secret]);
    assert.equal(before.status, 0, before.stderr);
    person.dispose();
    await first.shutdown();

    const second = await startHub(temp);
    const [restored] = second.ptyHost.list();
    assert.ok(restored && restored.name === 'agent' && restored.id !== agentPane.id, 'the pane came back under a new id');
    // The token follows the pane it was made for, so the same command works after the restart.
    const sent = await cli(second, ['send', 'agent', 'echo "after-restart-$((2+3))"', '--token', secret]);
    assert.equal(sent.status, 0, sent.stderr);
    await pollUntil(async () => (await screenText(second, restored.id)).includes('after-restart-5'), { what: 'the token to drive the restored pane' });
    const listed = await cli(second, ['tokens', 'list']);
    assert.match(listed.stdout, new RegExp(`${token.id}\\s+builder\\s+drive\\s+${restored.id} \\(agent\\)`));
    const stored = JSON.parse(readFileSync(join(temp.dataDir, 'control-tokens.json'), 'utf8')) as { tokens: Array<{ terminals: string[] }> };
    assert.deepEqual(stored.tokens[0]!.terminals, [restored.id], 'kept on disk for the next start');

    // Once its terminal is gone, the token says that instead of "unknown terminal".
    await second.ptyHost.close(restored.id);
    const gone = await cli(second, ['send', 'agent', 'echo nope', '--token', secret]);
    assert.equal(gone.status, 1);
    assert.match(gone.stderr, new RegExp(`unknown terminal "agent".*token "builder" is limited to terminals, and its terminal ${restored.id} is gone \\(closed, or not restored when Switchboard restarted\\)`));
    const byId = await cli(second, ['send', restored.id, 'echo nope', '--token', secret]);
    assert.equal(byId.status, 1);
    assert.match(byId.stderr, /gone/);
    // Over the socket, naming the id: the same news, as NOT_FOUND.
    const agent = new ControlClient({ socketPath: second.controlSocketPath, clientName: 'test', token: secret });
    cleanups.push(() => agent.dispose());
    await assert.rejects(agent.send(restored.id, { text: 'echo nope' }), (error: unknown) => {
      assert.ok(error instanceof ControlClientError);
      assert.equal(error.serverCode, 'NOT_FOUND');
      assert.equal(error.message, `terminal ${restored.id} of token "builder" is gone (it was closed, or not restored when Switchboard restarted); the token reaches no terminal in its place: create a token for the terminal you want`);
      return true;
    });
  });
});
