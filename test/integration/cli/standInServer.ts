/**
 * A STAND-IN for Switchboard's control socket server, for the few tests that check the client and
 * the CLI's argument handling on their own: a real Unix socket speaking claws/1 NDJSON, answering
 * from a small scripted table. The tests that exercise real terminals run against the real server
 * (controlServer.ts via `switchboard serve`), not this.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type StandInRequest = Record<string, unknown> & { id: string | number; cmd: string };
/** Return a body to answer `ok:true`, `{error, ...fields}` to answer `ok:false`, or `'silent'` to never answer. */
export type StandInHandler = (request: StandInRequest) => Record<string, unknown> | { error: string } | 'silent' | Promise<Record<string, unknown> | { error: string } | 'silent'>;

export interface StandInServer {
  socketPath: string;
  requests: StandInRequest[];
  close(): Promise<void>;
}

export async function startStandInServer(handlers: Record<string, StandInHandler>): Promise<StandInServer> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-cli-standin-'));
  const socketPath = join(dir, 'control.sock');
  const requests: StandInRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        void answer(socket, line);
      }
    });
  });
  const answer = async (socket: Socket, line: string) => {
    const request = JSON.parse(line) as StandInRequest;
    requests.push(request);
    const handler = handlers[request.cmd];
    const envelope = { id: request.id, rid: request.id, protocol: 'claws/1' };
    if (!handler) {
      socket.write(JSON.stringify({ ...envelope, ok: false, error: `unknown cmd: ${request.cmd}` }) + '\n');
      return;
    }
    const result = await handler(request);
    if (result === 'silent') return;
    // An error answer keeps what stands beside `error` (a `code`, an exec's `unsentInput`…), as our server sends it.
    if ('error' in result && typeof result.error === 'string') socket.write(JSON.stringify({ ...envelope, ok: false, ...result }) + '\n');
    else socket.write(JSON.stringify({ ...envelope, ok: true, ...result }) + '\n');
  };
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A `list` entry in the server's shape (src/common/protocol/control/clawsCommands.ts, ControlTerminal). */
export function standInTerminal(id: string, name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    name,
    pid: 100,
    hasShellIntegration: true,
    active: false,
    logPath: null,
    wrapped: true,
    cwd: '/tmp',
    status: 'running',
    exitCode: null,
    signal: null,
    cols: 80,
    rows: 24,
    createdBy: { kind: 'agent', name: 'test' },
    createdAt: 0,
    runningCommand: null,
    ...extra,
  };
}

/** An `exec` event in the server's shape (CommandEvent). */
export function standInCommandEvent(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    seq: 1,
    terminalId: 't1',
    terminalName: 'build',
    commandLine: '',
    output: '',
    exitCode: 0,
    startedAt: 0,
    endedAt: 0,
    cwd: '/tmp',
    truncated: false,
    startOffset: 0,
    endOffset: 0,
    source: 'exec',
    ...fields,
  };
}
