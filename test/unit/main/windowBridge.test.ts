/**
 * Fault: the Electron window's renderer crashes (main/windowBridge.ts). Without an Electron binary
 * here, the window is a stand-in with the same events: `render-process-gone` drops the page's Hub
 * connection (so the dead page's attachments and their flow-control debt go with it) and reloads
 * the window, at most three times a minute; a clean exit is not a crash. What the reloaded page
 * shows (its panes from the Hub's mirrors) is checked in browser mode:
 * test/integration/faults/rendererCrash.test.ts.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { WindowBridge } from '../../../main/windowBridge.ts';
import { createLogger } from '../../../src/node/logger.ts';

const quiet = createLogger({ level: 'silent' });

function standInWindow() {
  const contents = Object.assign(new EventEmitter(), {
    reloads: 0,
    reload() {
      this.reloads++;
    },
    isDestroyed: () => false,
    send: () => {},
  });
  const window = Object.assign(new EventEmitter(), { webContents: contents, isDestroyed: () => false });
  const connections: Array<{ disposed: boolean }> = [];
  const hub = {
    connect: () => {
      const connection = {
        disposed: false,
        get isDisposed() {
          return this.disposed;
        },
        dispose() {
          this.disposed = true;
        },
        call: async () => ({ ok: true, result: null }),
      };
      connections.push(connection);
      return connection;
    },
  };
  const bridge = new WindowBridge({ window: window as never, hub: hub as never, rendererUrl: 'file:///app/index.html', logger: quiet });
  const crash = (reason: string) => contents.emit('render-process-gone', {}, { reason, exitCode: 1 });
  return { bridge, contents, connections, crash };
}

describe('Electron window: a renderer that crashes', () => {
  it('drops the dead page’s connection and reloads the window; the new page gets a new connection', async () => {
    const { bridge, contents, connections, crash } = standInWindow();
    await bridge.handleCall('app.getState', {});
    assert.equal(connections.length, 1);
    crash('crashed');
    assert.equal(connections[0]!.disposed, true, 'the dead page’s attachments go with its connection');
    assert.equal(contents.reloads, 1, 'reloaded by itself');
    await bridge.handleCall('app.getState', {});
    assert.equal(connections.length, 2);
    assert.equal(connections[1]!.disposed, false);
    bridge.dispose();
  });

  it('reloads at most three times a minute, and never after a clean exit', () => {
    const { bridge, contents, crash } = standInWindow();
    crash('clean-exit');
    assert.equal(contents.reloads, 0);
    const fresh = standInWindow();
    for (const reason of ['crashed', 'oom', 'killed', 'crashed', 'crashed']) fresh.crash(reason);
    assert.equal(fresh.contents.reloads, 3, 'a renderer that crashes on load does not spin');
    bridge.dispose();
    fresh.bridge.dispose();
  });
});
