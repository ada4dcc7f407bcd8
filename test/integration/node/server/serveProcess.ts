/**
 * Runs `node src/cli/main.ts serve …` as a real child process for tests and parses its ready line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { readOutputFrameHeader } from '../../../../src/common/api/wire.ts';
import { testEnv } from '../../../helpers/tempHome.ts';

const cliMain = fileURLToPath(new URL('../../../../src/cli/main.ts', import.meta.url));

export interface ServeProcess {
  child: ChildProcess;
  port: number;
  token: string;
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startServe(options: { args: string[]; home: string; dataDir: string; env?: Record<string, string>; expectReady?: boolean }): Promise<ServeProcess> {
  const child = spawn(process.execPath, [cliMain, 'serve', ...options.args], {
    env: { ...testEnv(options.home), SWITCHBOARD_HOME: options.dataDir, SWITCHBOARD_LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const base = { child, stdout: () => stdout, stderr: () => stderr, exited };
  if (options.expectReady === false) return { ...base, port: 0, token: '', url: '' };
  const ready = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not get ready in time; stderr: ${stderr}`)), 15_000);
    const check = () => {
      const line = stdout.split('\n').find((candidate) => candidate.startsWith('Switchboard ready: ') || candidate.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolve(line);
      }
    };
    child.stdout!.on('data', check);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before it was ready; stderr: ${stderr}`));
    });
  });
  const url = ready.startsWith('{') ? (JSON.parse(ready) as { url: string }).url : ready.slice('Switchboard ready: '.length);
  const parsed = new URL(url);
  return { ...base, url, port: Number(parsed.port), token: parsed.searchParams.get('token') ?? '' };
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP GET with full control over headers (fetch would not let a test forge Host). */
export function httpGet(port: number, path: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Whether a process with this pid exists. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface ApiSocket {
  socket: WebSocket;
  /** Send a request frame and resolve with the matching response frame. */
  call(method: string, params: unknown): Promise<{ ok: boolean; result?: any; error?: { code: string; message: string } }>;
  /** Every event frame received so far. */
  events: { event: string; payload: any }[];
  /** Every frame received so far, parsed. */
  frames: any[];
  sendRaw(data: string | Buffer): void;
  close(): void;
}

/** Open the API WebSocket with the given headers; rejects with the HTTP status of a refused upgrade. */
export function openApi(port: number, headers: Record<string, string>): Promise<ApiSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api`, { headers });
    const frames: any[] = [];
    const events: { event: string; payload: any }[] = [];
    const waiting = new Map<number, (frame: any) => void>();
    let nextId = 1;
    socket.on('message', (data, isBinary) => {
      const frame = isBinary ? outputEvent(data as Buffer) : JSON.parse(data.toString());
      frames.push(frame);
      if (frame.type === 'event') events.push({ event: frame.event, payload: frame.payload });
      if (frame.type === 'response') waiting.get(frame.id)?.(frame);
    });
    socket.on('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })));
    socket.on('error', (error) => reject(error));
    socket.on('open', () =>
      resolve({
        socket,
        frames,
        events,
        call(method, params) {
          const id = nextId++;
          return new Promise((done) => {
            waiting.set(id, done);
            socket.send(JSON.stringify({ type: 'request', id, method, params }));
          });
        },
        sendRaw: (data) => socket.send(data),
        close: () => socket.close(),
      }),
    );
  });
}

/** A binary `terminal.output` frame (src/common/api/wire.ts, OutputFrame) as the event it carries. */
function outputEvent(frame: Buffer): { type: 'event'; event: 'terminal.output'; payload: { id: string; data: string; offset: number } } {
  const header = readOutputFrameHeader(frame);
  if (typeof header === 'string') throw new Error(header);
  return { type: 'event', event: 'terminal.output', payload: { id: header.id, data: frame.subarray(header.dataStart).toString('utf8'), offset: header.offset } };
}
