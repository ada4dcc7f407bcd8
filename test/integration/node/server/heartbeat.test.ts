/**
 * A client that stops answering pings (gone without closing, e.g. behind a dropped SSH tunnel) is
 * dropped, and with it its attachments; a live client stays.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { Hub } from '../../../../src/node/hub.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { BrowserServer } from '../../../../src/node/server/browserServer.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createTempHome } from '../../../helpers/tempHome.ts';

it('drops a WebSocket that stops answering pings and keeps one that answers', async (t) => {
  const temp = createTempHome();
  const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger });
  await hub.start();
  const server = new BrowserServer({ hub, logger: nullLogger, rendererDir: temp.home, host: '127.0.0.1', port: 0, heartbeatMs: 50 });
  const { port, token } = await server.listen();
  t.after(async () => {
    await server.close();
    hub.dispose();
    temp.dispose();
  });
  const open = (autoPong: boolean) =>
    new Promise<WebSocket>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/api`, { headers: { Authorization: `Bearer ${token}` }, autoPong });
      socket.on('open', () => resolve(socket));
      socket.on('error', reject);
    });
  const silent = await open(false);
  const live = await open(true);
  let silentClosed = false;
  silent.on('close', () => (silentClosed = true));
  await pollUntil(() => hub.connectionCount === 2, { what: 'two connections' });
  await pollUntil(() => silentClosed, { what: 'the silent socket to be dropped' });
  await pollUntil(() => hub.connectionCount === 1, { what: 'its Hub connection to be disposed' });
  assert.equal(live.readyState, WebSocket.OPEN);
  live.close();
});
