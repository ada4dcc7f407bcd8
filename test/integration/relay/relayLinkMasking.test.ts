/**
 * The daemon's link to the relay sends its frames with an all-zero masking key (relayConnection.ts
 * says why: the link is TLS or loopback, and a random key cost a copy and an XOR of every byte of
 * a preview download). Read here off the wire, below `ws`: the mask bit is set as RFC 6455 asks,
 * the key is zero, so the payload is the plain bytes — and the relay's `ws` still reads the frame.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { WebSocketServer } from 'ws';
import { nullLogger } from '../../../src/node/logger.ts';
import { RefusalLog } from '../../../src/node/relay/refusalLog.ts';
import { RelayConnection } from '../../../src/node/relay/relayConnection.ts';

describe("the daemon's relay link on the wire", () => {
  it('masks with an all-zero key: the mask bit set, the key 0, the payload as sent; the relay reads it', async () => {
    const server = createServer();
    const sockets = new WebSocketServer({ server });
    const raw: Buffer[] = [];
    const parsed: string[] = [];
    sockets.on('connection', (ws, req) => {
      req.socket.on('data', (chunk: Buffer) => raw.push(chunk));
      ws.on('message', (data) => {
        parsed.push(data.toString());
        if (parsed.length === 1) ws.send(JSON.stringify({ type: 'welcome' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const hello = JSON.stringify({ type: 'hello', machineId: 'm1', daemonVersion: '1', os: 'linux', arch: 'x64' });
    const refusals = new RefusalLog({ logger: nullLogger });
    const connection = new RelayConnection({
      url: new URL(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws/daemon?machineId=m1`),
      token: 'sbrd_test',
      hello,
      heartbeat: () => '{}',
      onMessage: () => {},
      logger: nullLogger,
      refusals,
    });
    try {
      await connection.open();
      assert.deepEqual(parsed, [hello], 'the relay read the hello');
      const frame = Buffer.concat(raw);
      assert.equal(frame[0], 0x81, 'FIN, a text frame');
      assert.equal(frame[1]! & 0x80, 0x80, 'the mask bit is set');
      const length = frame[1]! & 0x7f;
      const keyAt = length === 126 ? 4 : length === 127 ? 10 : 2;
      assert.deepEqual([...frame.subarray(keyAt, keyAt + 4)], [0, 0, 0, 0], 'the masking key is zero');
      assert.equal(frame.subarray(keyAt + 4).toString(), hello, 'so the payload is the hello as sent');
    } finally {
      connection.close();
      refusals.dispose();
      sockets.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
