/**
 * The bridge pings every client and closes one that stopped answering (a CLI killed without a
 * close frame, a suspended laptop), withdrawing its reviews. Keepalive timing is shortened here;
 * the app uses IdeConstants (30 s / 60 s).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { EditorState } from '../../../src/node/ide/editorState.ts';
import { IdeBridge } from '../../../src/node/ide/ideBridge.ts';
import { nullLogger } from '../../../src/node/logger.ts';
import { PtyHost } from '../../../src/node/pty/ptyHost.ts';
import { ReviewArchive } from '../../../src/node/review/reviewArchive.ts';
import { ReviewQueue } from '../../../src/node/review/reviewQueue.ts';
import { pollUntil } from '../../helpers/poll.ts';

const keepalive = { pingIntervalMs: 250, pongTimeoutMs: 4_000 } as const;
/** Pings the live client must get: twice the pong timeout's worth. */
const livePings = (2 * keepalive.pongTimeoutMs) / keepalive.pingIntervalMs;

describe('IDE bridge keepalive', () => {
  let dir: string;
  let ptyHost: PtyHost;
  let archive: ReviewArchive;
  let queue: ReviewQueue;
  let editors: EditorState;
  let bridge: IdeBridge;
  let token: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-ide-keepalive-'));
    ptyHost = new PtyHost({ logger: nullLogger, defaultCwd: dir });
    archive = new ReviewArchive({ path: null, logger: nullLogger });
    queue = new ReviewQueue({ archive, workspaceFolders: [dir], logger: nullLogger });
    editors = new EditorState({ terminalName: () => undefined });
    bridge = new IdeBridge({
      queue,
      editors,
      ptyHost,
      workspaceFolders: [dir],
      lockDir: join(dir, 'ide'),
      version: 'test',
      logger: nullLogger,
      openFile: () => {},
      saveEditorText: async () => {},
      // Generous for a loaded 2-core machine: a live client's pong would have to wait behind 4 s of
      // event-loop stall to be missed. The live client's check lasts twice that timeout.
      keepalive: { pingIntervalMs: keepalive.pingIntervalMs, pongTimeoutMs: keepalive.pongTimeoutMs },
    });
    await bridge.listen();
    token = JSON.parse(readFileSync(bridge.lockFile!, 'utf8')).authToken;
  });
  after(() => {
    bridge.dispose();
    queue.dispose();
    archive.dispose();
    editors.dispose();
    ptyHost.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  async function connect(autoPong: boolean): Promise<{ socket: WebSocket; pings: () => number; closed: Promise<void> }> {
    const socket = new WebSocket(`ws://127.0.0.1:${bridge.port}`, 'mcp', { headers: { 'x-claude-code-ide-authorization': token }, autoPong });
    let pings = 0;
    socket.on('ping', () => pings++);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    return { socket, pings: () => pings, closed };
  }

  it('keeps a client that answers pings, and closes one that does not, withdrawing its review', async () => {
    const live = await connect(true);
    const silent = await connect(false);
    silent.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'claude-code', version: '1' } } }));
    silent.socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const file = join(dir, 'a.txt');
    silent.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'openDiff', arguments: { old_file_path: file, new_file_path: file, new_file_contents: 'x', tab_name: 't' } } }));
    const review = await pollUntil(() => queue.pending()[0], { what: 'the silent client review' });
    const removed = new Promise<string>((resolve) => queue.onDidRemove((event) => event.id === review.id && resolve(event.reason)));

    await silent.closed;
    assert.equal(await removed, 'requester-gone');
    // The live client has been pinged well past the pong timeout and is still here.
    await pollUntil(() => live.pings() >= livePings || null, { timeoutMs: 120_000, what: `${livePings} pings to the live client` });
    assert.equal(live.socket.readyState, WebSocket.OPEN);
    assert.equal(bridge.connectionCount, 1);
    live.socket.close();
    await live.closed;
  });
});
