/**
 * IpcHubClient over a bridge shaped exactly like the preload's `window.switchboard`, wired to a
 * real Hub connection the way main/windowBridge.ts wires it (minus Electron's IPC pipe).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { IpcHubClient } from '../../../../src/browser/ipcHubClient.ts';
import type { SwitchboardBridge } from '../../../../src/browser/switchboardBridge.ts';
import { ApiError } from '../../../../src/common/api/errors.ts';
import { Hub } from '../../../../src/node/hub.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createTempHome, testEnv } from '../../../helpers/tempHome.ts';

function bridgeTo(hub: Hub): SwitchboardBridge & { listenerCount(): number } {
  const listeners = new Set<(event: string, payload: unknown) => void>();
  // Structured clone stands in for Electron's IPC serialisation.
  const connection = hub.connect({ sendEvent: (event, payload) => listeners.forEach((listener) => listener(event, structuredClone(payload))) }, { kind: 'person', name: 'you' });
  return {
    call: async (method, params) => structuredClone(await connection.call(method, structuredClone(params))),
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    listenerCount: () => listeners.size,
  };
}

describe('IpcHubClient', () => {
  it('calls the Hub, delivers events and turns refusals into ApiErrors', async (t) => {
    const temp = createTempHome();
    const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'electron', logger: nullLogger, env: {} });
    t.after(() => {
      hub.dispose();
      temp.dispose();
    });
    await hub.start();
    const bridge = bridgeTo(hub);
    const client = new IpcHubClient(bridge);
    const state = await client.call('app.getState', {});
    assert.equal(state.host, 'electron');

    let output = '';
    client.on('terminal.output', ({ data }) => (output += data));
    const info = await client.call('terminal.create', { file: 'bash', args: ['--norc', '--noprofile'], env: testEnv(temp.home), shellIntegration: false });
    await client.call('terminal.attach', { id: info.id });
    await client.call('terminal.write', { id: info.id, data: 'echo ipc-$((40+2))\r' });
    await pollUntil(() => output.includes('ipc-42'), { what: 'output over the bridge' });

    await assert.rejects(client.call('terminal.rename', { id: info.id, name: '' }), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'INVALID_PARAMS');
      assert.match(error.message, /name: Too small/);
      return true;
    });

    client.dispose();
    assert.equal(bridge.listenerCount(), 0, 'dispose unsubscribes from the bridge');
    await assert.rejects(client.call('terminal.list', {}), (error: unknown) => error instanceof ApiError && error.code === 'CONNECTION_CLOSED');
  });

  it('reports a failing bridge (main refused the sender) as CONNECTION_CLOSED', async () => {
    const client = new IpcHubClient({
      call: () => Promise.reject(new Error("Error invoking remote method 'switchboard:call'")),
      onEvent: () => () => {},
    });
    await assert.rejects(client.call('terminal.list', {}), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'CONNECTION_CLOSED');
      assert.match(error.message, /IPC to the main process failed/);
      return true;
    });
  });
});
