/**
 * One terminal as a remote viewer receives it: a `terminalSnapshot` (the screen as of output frame
 * `seq`), then `terminalOutput` frames `seq + 1`, `seq + 2`, … Remote viewers are lossy consumers,
 * so this is where losses are repaired:
 * - a frame already seen (seq ≤ last) is dropped;
 * - a gap (seq > last + 1), or bytes that are not base64, asks for a fresh snapshot and drops
 *   output until it comes; that snapshot then resets the pane (the caller writes it after a full
 *   reset), and output resumes from its seq;
 * - a snapshot nobody asked for (the relay re-syncing a lagging viewer, a re-attach) does the same.
 * Output bytes become text with a streaming UTF-8 decoder, so a character split across two frames
 * arrives whole.
 */
import { ApiError } from '../common/api/errors.ts';

export interface RelayTerminalStreamOptions {
  terminalId: string;
  /** Ask the daemon for a fresh snapshot (`agentTerminalSnapshotRequest`). */
  requestSnapshot(): void;
  /** Text to write into the attached pane, in order. `reset` is true when the pane must be cleared first. */
  onOutput(text: string, reset: boolean): void;
  /** How long an attach waits for its snapshot; also how often a lost snapshot request is repeated. */
  snapshotTimeoutMs: number;
}

export type StreamPhase = 'detached' | 'attaching' | 'live' | 'resyncing';

interface AttachWaiter {
  resolve(snapshot: string): void;
  reject(error: ApiError): void;
}

export class RelayTerminalStream {
  readonly #options: RelayTerminalStreamOptions;
  #phase: StreamPhase = 'detached';
  #lastSeq = 0;
  #decoder = new TextDecoder('utf-8');
  #waiters: AttachWaiter[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Gaps seen (for tests and diagnostics). */
  gaps = 0;
  snapshots = 0;

  constructor(options: RelayTerminalStreamOptions) {
    this.#options = options;
  }

  get phase(): StreamPhase {
    return this.#phase;
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  /**
   * Wait for the snapshot that starts (or restarts) this pane; the caller sends
   * `agentTerminalAttach`. Rejects with TIMEOUT when none comes (the terminal is not shared with
   * this viewer, or the machine did not answer).
   */
  attach(): Promise<string> {
    if (this.#phase !== 'attaching') {
      this.#phase = 'attaching';
      this.#armTimer(() => this.fail(new ApiError('TIMEOUT', `no snapshot of terminal ${this.#options.terminalId} came within ${Math.round(this.#options.snapshotTimeoutMs / 1000)} s (is it still shared?)`)));
    }
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** The pane went away: output is dropped until the next attach. */
  detach(): void {
    this.#clearTimer();
    this.#phase = 'detached';
  }

  /** Fail a pending attach (machine gone, terminal ended) and stop. */
  fail(error: ApiError): void {
    this.#clearTimer();
    this.#phase = 'detached';
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter.reject(error);
  }

  onSnapshot(seq: number, bytes: Uint8Array | undefined): void {
    if (this.#phase === 'detached') return;
    if (!bytes) {
      // A snapshot we cannot read is as good as none: ask again.
      this.#resync();
      return;
    }
    this.#clearTimer();
    this.snapshots++;
    this.#lastSeq = seq;
    this.#decoder = new TextDecoder('utf-8');
    const text = new TextDecoder('utf-8').decode(bytes);
    if (this.#phase === 'attaching') {
      this.#phase = 'live';
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const waiter of waiters) waiter.resolve(text);
      return;
    }
    this.#phase = 'live';
    this.#options.onOutput(text, true);
  }

  onOutput(seq: number, bytes: Uint8Array | undefined): void {
    // Before the snapshot (attaching, resyncing) output belongs to a screen we have not drawn.
    if (this.#phase !== 'live') return;
    if (seq <= this.#lastSeq) return;
    if (seq !== this.#lastSeq + 1 || !bytes) {
      this.gaps++;
      this.#resync();
      return;
    }
    this.#lastSeq = seq;
    const text = this.#decoder.decode(bytes, { stream: true });
    if (text !== '') this.#options.onOutput(text, false);
  }

  dispose(): void {
    this.fail(new ApiError('CONNECTION_CLOSED', 'the relay client was disposed'));
  }

  #resync(): void {
    this.#phase = 'resyncing';
    this.#options.requestSnapshot();
    // A request can be lost (the daemon reconnecting): repeat it until a snapshot comes.
    this.#armTimer(() => {
      if (this.#phase === 'resyncing') this.#resync();
    });
  }

  #armTimer(onTimeout: () => void): void {
    this.#clearTimer();
    this.#timer = setTimeout(onTimeout, this.#options.snapshotTimeoutMs);
  }

  #clearTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
