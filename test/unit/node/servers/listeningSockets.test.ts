/** Reading /proc/net/tcp{,6}: which rows are local listening sockets, and their addresses. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { parsePsParents } from '../../../../src/node/agents/agentProcess.ts';
import { parseLsofListeners, parseSocketTable, readListeningSockets, socketInodesOf, socketTablesSupported } from '../../../../src/node/servers/listeningSockets.ts';

const header = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
const row = (local: string, state: string, inode: number) =>
  `   0: ${local} 00000000:0000 ${state} 00000000:00000000 00:00000000 00000000  1000        0 ${inode} 1 0000000000000000 100 0 0 10 0\n`;

describe('parseSocketTable', () => {
  it('keeps LISTEN rows on loopback and wildcard IPv4 addresses, with the port in decimal', () => {
    const table = header + row('0100007F:1435', '0A', 11) + row('00000000:1F40', '0A', 12) + row('0101A8C0:0050', '0A', 13) + row('0100007F:1436', '01', 14) + row('0200007F:0016', '0A', 15);
    assert.deepEqual(parseSocketTable(table), [
      { host: '127.0.0.1', port: 5173, inode: 11 },
      { host: '0.0.0.0', port: 8000, inode: 12 },
      // 192.168.1.1 is no local dev server; an ESTABLISHED row (01) is no listener.
      { host: '127.0.0.2', port: 22, inode: 15 },
    ]);
  });

  it('reads IPv6 ::, ::1 and IPv4-mapped loopback, and leaves other IPv6 addresses out', () => {
    const table =
      header +
      row('00000000000000000000000000000000:0BB8', '0A', 21) +
      row('00000000000000000000000001000000:0BB9', '0A', 22) +
      row('0000000000000000FFFF00000100007F:0BBA', '0A', 23) +
      row('000080FE00000000FF005450B6AD1DFE:0BBB', '0A', 24);
    assert.deepEqual(parseSocketTable(table), [
      { host: '::', port: 3000, inode: 21 },
      { host: '::1', port: 3001, inode: 22 },
      { host: '127.0.0.1', port: 3002, inode: 23 },
    ]);
  });

  it('skips malformed rows and an empty table', () => {
    assert.deepEqual(parseSocketTable(''), []);
    assert.deepEqual(parseSocketTable(header + '   0: garbage\n' + row('0100007F:0000', '0A', 5) + row('0100007F:1435', '0A', 0)), []);
  });
});

describe('the live tables (Linux)', { skip: !socketTablesSupported }, () => {
  it('find a socket this process listens on, and its inode among this process’s fds', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const socket = (await readListeningSockets()).find((entry) => entry.port === port);
      assert.ok(socket, 'the listening socket is in /proc/net/tcp');
      assert.equal(socket.host, '127.0.0.1');
      assert.ok((await socketInodesOf(process.pid)).includes(socket.inode));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('parseLsofListeners (macOS)', () => {
  it('reads lsof -F ptn records: wildcard by address family, loopback kept, other addresses left out', () => {
    const output = ['p501', 'f22', 'tIPv4', 'n*:5173', 'f23', 'tIPv6', 'n*:5173', 'p502', 'f9', 'tIPv6', 'n[::1]:3000', 'f10', 'tIPv4', 'n127.0.0.1:3001', 'f11', 'tIPv4', 'n192.168.1.4:3002', 'f12', 'tIPv4', 'nlocalhost:3003', ''].join('\n');
    assert.deepEqual(parseLsofListeners(output), [
      { pid: 501, host: '0.0.0.0', port: 5173 },
      { pid: 501, host: '::', port: 5173 },
      { pid: 502, host: '::1', port: 3000 },
      { pid: 502, host: '127.0.0.1', port: 3001 },
      { pid: 502, host: '127.0.0.1', port: 3003 },
    ]);
    assert.deepEqual(parseLsofListeners(''), []);
  });
});

describe('parsePsParents (macOS)', () => {
  it('maps each parent to its children from ps -ax -o pid=,ppid=', () => {
    const children = parsePsParents('    1     0\n  501     1\n  502   501\n  503   501\n garbage\n');
    assert.deepEqual(children.get(501), [502, 503]);
    assert.deepEqual(children.get(1), [501]);
    assert.equal(children.get(502), undefined);
  });
});
