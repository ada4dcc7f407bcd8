/**
 * A raw NDJSON connection to the control socket, as the soak's clients need it: requests answered
 * by `rid` (any number in flight), every other frame (pushes, connection-level errors without a
 * rid) handed to `onFrame`, and raw writes for hostile bytes. No client library in between: the
 * soak speaks the wire the way claws clients do.
 */
import { createConnection, type Socket } from 'node:net';

export type Frame = Record<string, any>;

export class LineClient {
  readonly socket: Socket;
  /** Frames that answer no request of ours (pushes; errors for lines without an id). */
  onFrame: (frame: Frame) => void = () => {};
  /** Lines from the server that were not JSON (never expected: counted as errors). */
  badLines = 0;
  closed = false;
  readonly #pending = new Map<string, { resolve: (frame: Frame) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  readonly #closeWaiters: Array<() => void> = [];
  #buffered = '';
  #nextId = 1;
  readonly #prefix: string;

  private constructor(socket: Socket, prefix: string) {
    this.socket = socket;
    this.#prefix = prefix;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.#buffered += chunk;
      let newline: number;
      while ((newline = this.#buffered.indexOf('\n')) !== -1) {
        const line = this.#buffered.slice(0, newline);
        this.#buffered = this.#buffered.slice(newline + 1);
        if (line.trim() === '') continue; // claws.md: blank lines are skipped
        let frame: Frame;
        try {
          frame = JSON.parse(line) as Frame;
        } catch {
          this.badLines++;
          continue;
        }
        const waiting = typeof frame.rid === 'string' ? this.#pending.get(frame.rid) : undefined;
        if (waiting) {
          this.#pending.delete(frame.rid);
          clearTimeout(waiting.timer);
          waiting.resolve(frame);
        } else this.onFrame(frame);
      }
    });
    // Hostile clients get closed by the server (request too large); that is expected, not a crash.
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      for (const [, waiting] of this.#pending) {
        clearTimeout(waiting.timer);
        waiting.reject(new Error('connection closed'));
      }
      this.#pending.clear();
      for (const wake of this.#closeWaiters.splice(0)) wake();
    });
  }

  static connect(path: string, prefix = 'r'): Promise<LineClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(path);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new LineClient(socket, prefix));
      });
      socket.once('error', reject);
    });
  }

  get inFlight(): number {
    return this.#pending.size;
  }

  /** Send a request (a string id is added) and resolve with its answer. */
  request(fields: Frame, timeoutMs = 60_000): Promise<Frame> {
    const id = `${this.#prefix}${this.#nextId++}`;
    return new Promise((resolve, reject) => {
      if (this.closed) {
        reject(new Error('connection closed'));
        return;
      }
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`no answer to ${String(fields.cmd)} in ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      this.socket.write(JSON.stringify({ ...fields, id }) + '\n');
    });
  }

  write(data: string | Buffer): void {
    if (!this.closed) this.socket.write(data);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const closed = new Promise<void>((resolve) => this.#closeWaiters.push(resolve));
    this.socket.destroy();
    return closed;
  }
}
