/**
 * One terminal: a running (or exited) PTY process and everything the Hub keeps about it.
 *
 * The hot path, per batch of PTY output (see DESIGN.md §4):
 *   PTY reads → OutputBatcher → ring (raw bytes) → OSC scan (marks, notifications)
 *             → headless mirror → onDidOutput → subscribers (with per-subscriber flow control)
 * A batch is decoded to a string once and that one string goes everywhere.
 */
import { constants as osConstants } from 'node:os';
import type { IPty } from 'node-pty';
import type { AgentStatus } from '../../common/api/agentContract.ts';
import type { CommandSummary, Creator, RestoredFrom, TerminalInfo } from '../../common/api/contract.ts';
import type { DevServer } from '../../common/api/devServerContract.ts';
import { ApiError } from '../../common/api/errors.ts';
import { TerminalConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { echoedCommandLine } from '../../common/terminal/echoedLine.ts';
import { CommandTracker, type CommandEvent, type CommandStart } from '../../common/terminal/commandTracker.ts';
import { OscParser, type OscParserHandler } from '../../common/terminal/oscParser.ts';
import { parseTerminalMark } from '../../common/terminal/terminalMarks.ts';
import type { ILogger } from '../logger.ts';
import { postponeCollection } from '../idleCollector.ts';
import { isProcessAlive } from '../processAlive.ts';
import { type FlowAccount, FlowController } from './flowControl.ts';
import { createLocalMirror } from './lazyMirror.ts';
import { OutputBatcher } from './outputBatcher.ts';
import { OutputRing, type RingRead, type RingSearch } from './outputRing.ts';
import { sessionProcessGroups, signalProcessGroups } from './processGroups.ts';
import type { ITerminalMirror, ScreenText, TerminalMirrorOptions } from './terminalMirror.ts';

export type { CommandEvent, CommandStart } from '../../common/terminal/commandTracker.ts';

export interface OutputSubscriber {
  /** Lossless subscribers take part in flow control: the PTY waits for their acks. */
  readonly lossless: boolean;
  /** A batch of output; `endOffset` is the absolute byte offset just after it. */
  onOutput(data: string, endOffset: number): void;
}

/** A subscriber's place in the output stream (PtySession.follow), without the screen. */
export interface OutputFollow extends IDisposable {
  /** Byte offset onOutput continues exactly from. */
  readonly offset: number;
  /** The subscriber processed this many chars of output (flow control). */
  ack(chars: number): void;
  /** Chars delivered (or queued for delivery) to this subscriber and not acknowledged yet. */
  readonly unacknowledged: number;
}

export interface Attachment extends OutputFollow {
  /** Serialized mirror (screen + scrollback); written into a fresh xterm of cols×rows it reproduces the screen. */
  readonly snapshot: string;
  /** The offset the snapshot corresponds to. */
  readonly offset: number;
  /** At that offset our integrated shell had not drawn its first prompt yet (see PtySession.startingUp). */
  readonly startingUp: boolean;
  readonly cols: number;
  readonly rows: number;
}

export interface ExitStatus {
  exitCode: number | null;
  signal: string | null;
}

export interface PtySessionOptions {
  id: string;
  pty: IPty;
  name: string;
  file: string;
  args: string[];
  cwd: string;
  cols: number;
  rows: number;
  createdBy: Creator;
  /** Nonce given to our shell integration script (null when none was injected). */
  nonce: string | null;
  scrollback: number;
  ringBytes: number;
  logger: ILogger;
  isLocalHost: (host: string) => boolean;
  /** Where the mirror runs (PtyHost passes its MirrorHost); default: in-process. */
  createMirror?: (options: TerminalMirrorOptions) => ITerminalMirror;
  /**
   * Output shown before the process's own (a restored pane's last screen): it goes through the
   * pipeline like PTY output, so the mirror, the ring and every later attach see it.
   */
  preamble?: string;
  restoredFrom?: RestoredFrom;
}

interface Subscription {
  readonly subscriber: OutputSubscriber;
  readonly account: FlowAccount;
  /** Output that arrived before the attach was delivered: alternating data, endOffset. */
  pending: Array<string | number> | null;
  disposed: boolean;
}

/** The longest echo of a typed line a command is named from (see echoedLine.ts). */
const maxEchoedLineBytes = 16 * 1024;

/** How often a session builds a new mirror after losing one (a worker that keeps dying is not retried forever). */
const maxMirrorRebuilds = 3;

/** Well inside node-pty's 200 ms grace between a process's exit and destroying its unread PTY. */
const exitWatchIntervalMs = 20;

const signalNames = new Map<number, string>(Object.entries(osConstants.signals).map(([name, number]) => [number, name]));

export class PtySession implements IDisposable {
  readonly id: string;
  readonly #logger: ILogger;
  readonly #info: TerminalInfo;
  #pty: IPty | undefined;
  readonly #ptyListeners: IDisposable[] = [];
  readonly #ring: OutputRing;
  readonly #batcher: OutputBatcher;
  #mirror: ITerminalMirror;
  readonly #createMirror: (options: TerminalMirrorOptions) => ITerminalMirror;
  readonly #scrollback: number;
  #mirrorRebuilds = 0;
  readonly #mirrorAccount: FlowAccount;
  readonly #flow: FlowController;
  readonly #parser: OscParser;
  readonly #tracker: CommandTracker;
  /** The shell drew a prompt (shell integration) since it started. */
  #promptDrawn = false;
  /** Our integration script was injected (its marks are expected once the shell has started). */
  readonly #integrationInjected: boolean;
  readonly #subscriptions = new Set<Subscription>();
  #offset = 0;
  /** The batch being scanned, so parser callbacks can turn char indexes into byte offsets. */
  #batchText = '';
  #batchStartOffset = 0;
  #batchIsAscii = true;
  #exit: ExitStatus | null = null;
  readonly #exited: Promise<ExitStatus>;
  #resolveExited!: (status: ExitStatus) => void;
  #killing: Promise<void> | undefined;
  /** Polls for the process's end while reading is paused (see #pauseReading). */
  #exitWatch: NodeJS.Timeout | undefined;
  /** The process is gone: its last output must be read whatever the subscribers' debt. */
  #processGone = false;
  /** Set while a batch is parsed: info changes are announced once, after it. */
  #coalescingInfo = false;
  #infoChangedInBatch = false;
  readonly #sleeps = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  #disposed = false;

  /** `bytes`: the raw bytes of `data` (exact even where they are not valid UTF-8); a view valid only during the call. */
  readonly #onDidOutput = new Emitter<{ data: string; bytes: Uint8Array; startOffset: number; endOffset: number }>();
  readonly onDidOutput: Event<{ data: string; bytes: Uint8Array; startOffset: number; endOffset: number }> = this.#onDidOutput.event;
  readonly #onDidWrite = new Emitter<{ data: string }>();
  /** Input was written to the process (a person typing, an agent's send, a paste): History notes that the session received input. */
  readonly onDidWrite: Event<{ data: string }> = this.#onDidWrite.event;
  readonly #onDidCommand = new Emitter<CommandEvent>();
  readonly onDidCommand: Event<CommandEvent> = this.#onDidCommand.event;
  readonly #onDidReachPrompt = new Emitter<void>();
  /** The shell finished drawing a prompt (shell integration): typed input goes to its line editor now. */
  readonly onDidReachPrompt: Event<void> = this.#onDidReachPrompt.event;
  readonly #onDidStartCommand = new Emitter<CommandStart>();
  /** The shell began a command (shell integration); onDidCommand follows when it ends. */
  readonly onDidStartCommand: Event<CommandStart> = this.#onDidStartCommand.event;
  readonly #onDidExit = new Emitter<ExitStatus>();
  readonly onDidExit: Event<ExitStatus> = this.#onDidExit.event;
  readonly #onDidChangeInfo = new Emitter<TerminalInfo>();
  /** Any field of `info` changed. */
  readonly onDidChangeInfo: Event<TerminalInfo> = this.#onDidChangeInfo.event;
  readonly #onDidNotify = new Emitter<{ title: string; body: string }>();
  /** BEL (when not already flagged), OSC 9 or OSC 777;notify. */
  readonly onDidNotify: Event<{ title: string; body: string }> = this.#onDidNotify.event;
  readonly #onDidChangeAgent = new Emitter<{ agent: AgentStatus | null; previous: AgentStatus | null }>();
  /** `info.agent` changed (the Hub's AgentMonitor sets it). */
  readonly onDidChangeAgent: Event<{ agent: AgentStatus | null; previous: AgentStatus | null }> = this.#onDidChangeAgent.event;
  readonly #onDidChangeServers = new Emitter<{ servers: readonly DevServer[]; previous: readonly DevServer[] }>();
  /** `info.servers` changed (the PtyHost's ServerMonitor sets it): a dev server began or stopped listening. */
  readonly onDidChangeServers: Event<{ servers: readonly DevServer[]; previous: readonly DevServer[] }> = this.#onDidChangeServers.event;

  constructor(options: PtySessionOptions) {
    this.id = options.id;
    this.#logger = options.logger;
    this.#pty = options.pty;
    this.#info = {
      id: options.id,
      name: options.name,
      file: options.file,
      args: options.args,
      pid: options.pty.pid,
      cwd: options.cwd,
      cols: options.cols,
      rows: options.rows,
      state: 'running',
      exitCode: null,
      signal: null,
      runningCommand: null,
      lastCommand: null,
      needsAttention: false,
      shellIntegration: false,
      createdBy: options.createdBy,
      createdAt: Date.now(),
      endedAt: null,
      ...(options.restoredFrom ? { restoredFrom: options.restoredFrom } : {}),
    };
    this.#exited = new Promise((resolve) => (this.#resolveExited = resolve));
    this.#ring = new OutputRing(options.ringBytes);
    this.#flow = new FlowController({
      highWatermark: TerminalConstants.highWatermarkChars,
      lowWatermark: TerminalConstants.lowWatermarkChars,
      pause: () => this.#pauseReading(),
      resume: () => this.#resumeReading(),
    });
    // The mirror must not fall behind without bound either (xterm drops data past 50 MB).
    this.#mirrorAccount = this.#flow.open(true, {
      high: TerminalConstants.mirrorHighWatermarkChars,
      low: TerminalConstants.mirrorLowWatermarkChars,
    });
    this.#createMirror = options.createMirror ?? createLocalMirror;
    this.#scrollback = options.scrollback;
    this.#mirror = this.#newMirror(options.cols, options.rows);
    this.#parser = new OscParser(this.#parserHandler);
    this.#integrationInjected = options.nonce !== null;
    this.#tracker = new CommandTracker({
      nonce: options.nonce,
      initialCwd: options.cwd,
      isLocalHost: options.isLocalHost,
      echoedLine: (from, to) => {
        // A line's echo is short; a long stretch is something else (output typed ahead of a prompt).
        if (to - from > maxEchoedLineBytes) return null;
        const read = this.#ring.read(from, to - from);
        return read.startOffset === from ? echoedCommandLine(read.data.toString('utf8')) : null;
      },
    });
    this.#tracker.onDidChange(() => this.#syncTrackerInfo());
    this.#tracker.onDidFinishCommand((event) => this.#onDidCommand.fire(event));
    this.#tracker.onDidStartCommand((start) => this.#onDidStartCommand.fire(start));
    this.#tracker.onDidReachPrompt(() => {
      this.#promptDrawn = true;
      this.#onDidReachPrompt.fire();
    });
    this.#batcher = new OutputBatcher({
      maxBytes: TerminalConstants.batchMaxBytes,
      maxDelayMs: TerminalConstants.batchMaxDelayMs,
      onBatch: (bytes) => this.#processBatch(bytes),
    });
    // With `encoding: null` node-pty delivers Buffers, although its typings say string.
    this.#ptyListeners.push(options.pty.onData((data) => this.#batcher.push(data as unknown as Buffer)));
    this.#ptyListeners.push(options.pty.onExit(({ exitCode, signal }) => this.#handleExit(exitCode, signal)));
    // Before any PTY data can arrive (node-pty delivers it on a later tick).
    if (options.preamble) this.#processBatch(Buffer.from(options.preamble, 'utf8'));
  }

  get info(): TerminalInfo {
    const info = this.#info;
    const copy = { ...info, args: [...info.args], createdBy: { ...info.createdBy }, lastCommand: info.lastCommand && { ...info.lastCommand } };
    if (info.servers) copy.servers = info.servers.map((server) => ({ ...server }));
    return copy;
  }

  /** Total bytes produced so far (and delivered to the ring, mirror and subscribers). */
  get offset(): number {
    return this.#offset;
  }

  /** The shell has drawn its prompt and no command started since (shell integration). */
  get atPrompt(): boolean {
    return this.#tracker.atPrompt;
  }

  /**
   * Our shell integration was injected but the shell has not reported yet: it is still starting
   * (slow rc files). Whatever is typed now lands in the middle of the rc's startup.
   */
  get integrationPending(): boolean {
    return this.#integrationInjected && !this.#tracker.shellIntegration && !this.#exit;
  }

  /**
   * Our shell integration was injected and the shell has not drawn its first prompt yet: it is
   * still reading its rc files, and has not asked for bracketed paste. Unlike integrationPending
   * this stays true after the first mark (the cwd report from PROMPT_COMMAND) until the prompt.
   */
  get startingUp(): boolean {
    return this.#integrationInjected && !this.#promptDrawn && !this.#exit;
  }

  /** Offset of the last prompt's start mark (OSC 633/133 A), if any. */
  get promptStartOffset(): number | null {
    return this.#tracker.promptStartOffset;
  }

  /** Our integration script was injected: command marks without its nonce are ignored. */
  get integrationInjected(): boolean {
    return this.#integrationInjected;
  }

  /** See CommandTracker.showCommandAs. */
  showCommandAs(typedLine: string, commandLine: string): IDisposable {
    return this.#tracker.showCommandAs(typedLine, commandLine);
  }

  get exitStatus(): ExitStatus | null {
    return this.#exit;
  }

  /** Resolves when the process has exited and all its output went through the pipeline. */
  get exited(): Promise<ExitStatus> {
    return this.#exited;
  }

  write(data: string): void {
    this.#requireRunning().write(data);
    postponeCollection();
    if (this.#onDidWrite.hasListeners) this.#onDidWrite.fire({ data });
  }

  resize(cols: number, rows: number): void {
    if (!isInRange(cols, TerminalConstants.minCols, TerminalConstants.maxCols) || !isInRange(rows, TerminalConstants.minRows, TerminalConstants.maxRows)) {
      throw new ApiError('INVALID_PARAMS', `invalid size ${cols}x${rows}`);
    }
    const pty = this.#requireRunning();
    if (cols === this.#info.cols && rows === this.#info.rows) return;
    // Output already read was produced for the old size: parse it at that size first.
    this.#batcher.flush();
    try {
      pty.resize(cols, rows);
    } catch (error) {
      // While the shell is exiting: node-pty has closed the PTY once its output ended, but reports
      // the exit only after it reaped the process, so the ioctl fails (EBADF, ENOTTY) in between.
      throw new ApiError('TERMINAL_EXITED', `terminal ${this.id} has exited (its terminal is closed: ${(error as Error).message})`);
    }
    this.#mirror.resize(cols, rows);
    this.#info.cols = cols;
    this.#info.rows = rows;
    this.#fireInfo();
  }

  rename(name: string): void {
    if (name === this.#info.name) return;
    this.#info.name = name;
    this.#fireInfo();
  }

  /** The agent running in this terminal and its state (src/node/agents/agentMonitor.ts decides it). */
  setAgent(agent: AgentStatus | null): void {
    const previous = this.#info.agent ?? null;
    if (previous === agent) return;
    this.#info.agent = agent;
    this.#fireInfo();
    this.#onDidChangeAgent.fire({ agent, previous });
  }

  /** The dev servers found in this terminal (src/node/servers/serverMonitor.ts decides them). */
  setServers(servers: readonly DevServer[]): void {
    const previous = this.#info.servers ?? [];
    if (previous.length === 0 && servers.length === 0) return;
    this.#info.servers = servers.map((server) => ({ ...server }));
    this.#fireInfo();
    this.#onDidChangeServers.fire({ servers: this.#info.servers, previous });
  }

  markSeen(): void {
    if (!this.#info.needsAttention) return;
    this.#info.needsAttention = false;
    this.#fireInfo();
  }

  /**
   * End the process group(s): SIGHUP, then SIGTERM, then SIGKILL, each after a grace period.
   * Resolves with the exit status once the process has exited and its output was processed.
   */
  kill(): Promise<ExitStatus> {
    if (this.#exit) return Promise.resolve(this.#exit);
    this.#killing ??= this.#escalateKill().catch((error: unknown) => {
      this.#logger.error('killing terminal failed', { id: this.id, error });
    });
    return this.#exited;
  }

  async attach(subscriber: OutputSubscriber): Promise<Attachment> {
    const { subscription, follow } = this.#subscribe(subscriber);
    const startingUp = this.startingUp;
    let snapshot: { data: string; cols: number; rows: number };
    try {
      snapshot = await this.#askMirror((mirror) => mirror.snapshot());
    } catch (error) {
      this.#unsubscribe(subscription);
      // Closed while we waited for the mirror: that is the client's "not found", not our failure.
      if (this.#disposed) throw new ApiError('NOT_FOUND', `terminal ${this.id} was closed`);
      throw error;
    }
    // Output that arrived while serializing is delivered on the next turn, after the caller's
    // continuation of `await attach()` has handled the snapshot.
    setImmediate(() => this.#goLive(subscription));
    return {
      snapshot: snapshot.data,
      offset: follow.offset,
      startingUp,
      cols: snapshot.cols,
      rows: snapshot.rows,
      ack: follow.ack,
      get unacknowledged() {
        return follow.unacknowledged;
      },
      dispose: follow.dispose,
    };
  }

  /**
   * Output from now on, without the screen: for a subscriber that never draws what came before
   * (a claws output stream). attach() serializes the whole scrollback for its snapshot — up to
   * ~3 ms of the mirror worker per subscription, 3 s in the soak's 20 s of 1 000 subscriptions.
   * Output from the offset on is delivered from the next turn, after the caller has set up.
   */
  follow(subscriber: OutputSubscriber): OutputFollow {
    const { subscription, follow } = this.#subscribe(subscriber);
    setImmediate(() => this.#goLive(subscription));
    return follow;
  }

  #subscribe(subscriber: OutputSubscriber): { subscription: Subscription; follow: OutputFollow } {
    if (this.#disposed) throw new ApiError('NOT_FOUND', `terminal ${this.id} was closed`);
    // Everything read so far goes out (and to the mirror, before attach's marker) first: the
    // new subscriber starts after it.
    this.#batcher.flush();
    const subscription: Subscription = { subscriber, account: this.#flow.open(subscriber.lossless), pending: [], disposed: false };
    this.#subscriptions.add(subscription);
    const follow: OutputFollow = {
      offset: this.#offset,
      ack: (chars) => subscription.account.ack(chars),
      get unacknowledged() {
        return subscription.account.unacknowledged;
      },
      dispose: () => this.#unsubscribe(subscription),
    };
    return { subscription, follow };
  }

  /** `into`: copy into this buffer rather than a new one (OutputRing.read). */
  readRing(fromOffset: number, maxBytes?: number, into?: Buffer): RingRead {
    return this.#ring.read(fromOffset, maxBytes, into);
  }

  /** The last `byte` of the output in [fromOffset, toOffset) still held, found without copying (OutputRing.lastIndexOf). */
  lastIndexInRing(byte: number, fromOffset: number, toOffset: number): RingSearch {
    return this.#ring.lastIndexOf(byte, fromOffset, toOffset);
  }

  /** The serialized mirror (screen + scrollback), as of everything produced so far. */
  async serializeScreen(options: { scrollback?: number } = {}): Promise<string> {
    this.#batcher.flush();
    return (await this.#askMirror((mirror) => mirror.snapshot(options))).data;
  }

  /** The mirror's text (viewport, or everything with `scrollback: true`), as of everything produced so far. */
  readScreen(options: { scrollback?: boolean } = {}): Promise<ScreenText> {
    this.#batcher.flush();
    return this.#askMirror((mirror) => mirror.readText(options));
  }

  /**
   * Ask the mirror; when its worker died while it was answering, ask once more of the mirror
   * rebuilt from the ring (#rebuildMirror runs before the failed request's caller resumes), so
   * a pane attaching or an agent reading the screen at that moment does not see the fault.
   */
  async #askMirror<T>(ask: (mirror: ITerminalMirror) => Promise<T>): Promise<T> {
    const mirror = this.#mirror;
    try {
      return await ask(mirror);
    } catch (error) {
      if (this.#disposed || this.#mirror === mirror) throw error;
      return ask(this.#mirror);
    }
  }

  /** Hard stop: every process group of the session gets SIGHUP and SIGKILL at once; nothing is left running. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    const pty = this.#pty;
    if (pty && !this.#exit) {
      const groups = new Set([...sessionProcessGroups(pty.pid), pty.pid]);
      signalProcessGroups([...groups], 'SIGHUP');
      const refused = signalProcessGroups([...groups], 'SIGKILL');
      if (refused.length > 0) this.#logger.warn('not allowed to kill some processes of the terminal', { id: this.id, refused });
      // Nobody will see the exit event now; settle kill()/exited waiters with what we did.
      this.#exit = { exitCode: null, signal: 'SIGKILL' };
      Object.assign(this.#info, { state: 'exited', exitCode: null, signal: 'SIGKILL', endedAt: Date.now(), runningCommand: null });
      this.#resolveExited(this.#exit);
    }
    for (const listener of this.#ptyListeners) listener.dispose();
    this.#ptyListeners.length = 0;
    this.#pty = undefined;
    clearInterval(this.#exitWatch);
    this.#exitWatch = undefined;
    for (const sleep of this.#sleeps) {
      clearTimeout(sleep.timer);
      sleep.resolve();
    }
    this.#sleeps.clear();
    this.#batcher.dispose();
    for (const subscription of this.#subscriptions) subscription.disposed = true;
    this.#subscriptions.clear();
    this.#flow.dispose();
    this.#mirror.dispose();
    this.#tracker.dispose();
    this.#onDidOutput.dispose();
    this.#onDidWrite.dispose();
    this.#onDidCommand.dispose();
    this.#onDidStartCommand.dispose();
    this.#onDidReachPrompt.dispose();
    this.#onDidExit.dispose();
    this.#onDidChangeInfo.dispose();
    this.#onDidNotify.dispose();
    this.#onDidChangeAgent.dispose();
    this.#onDidChangeServers.dispose();
  }

  #newMirror(cols: number, rows: number): ITerminalMirror {
    return this.#createMirror({
      cols,
      rows,
      scrollback: this.#scrollback,
      onParsed: (chars) => this.#mirrorAccount.ack(chars),
      onLost: (error) => this.#rebuildMirror(error),
    });
  }

  /**
   * The mirror's worker died: a new mirror gets the output the ring still holds (the last 4 MiB),
   * so panes can still attach and agents read the screen. Exact when the session printed less
   * than that; otherwise the screen is rebuilt from its last 4 MiB, which is what it shows in
   * almost every case. A worker that keeps dying is given up on after a few tries.
   */
  #rebuildMirror(error: Error): void {
    if (this.#disposed) return;
    if (++this.#mirrorRebuilds > maxMirrorRebuilds) {
      this.#logger.error('terminal mirror lost again; giving up on it', { id: this.id, error });
      return;
    }
    this.#logger.warn('terminal mirror lost; rebuilding it from the output still held', { id: this.id, error });
    const lost = this.#mirror;
    this.#mirror = this.#newMirror(this.#info.cols, this.#info.rows);
    lost.dispose();
    const held = this.#ring.read(this.#ring.startOffset);
    if (held.data.length === 0) return;
    const chars = held.data.toString('utf8').length;
    this.#mirrorAccount.charge(chars);
    this.#mirror.write(held.data, chars);
  }

  // --- hot path -------------------------------------------------------------------------------

  #processBatch(bytes: Buffer): void {
    const startOffset = this.#offset;
    const endOffset = startOffset + bytes.length;
    this.#offset = endOffset;
    this.#ring.write(bytes);
    const text = bytes.toString('utf8');
    if (this.#logger.isEnabled('trace')) this.#logger.trace('output', { id: this.id, startOffset, text });

    this.#batchText = text;
    this.#batchStartOffset = startOffset;
    // UTF-16 length equals byte length only when every char is ASCII.
    this.#batchIsAscii = text.length === bytes.length;
    // Marks can change the info hundreds of times in one batch (`cat` of a log full of them):
    // tell listeners once per batch, not once per mark.
    this.#coalescingInfo = true;
    this.#parser.feed(text);
    this.#coalescingInfo = false;
    this.#batchText = '';
    if (this.#infoChangedInBatch) {
      this.#infoChangedInBatch = false;
      this.#fireInfo();
    }

    this.#mirror.write(bytes, text.length);
    this.#mirrorAccount.charge(text.length);

    if (this.#onDidOutput.hasListeners) this.#onDidOutput.fire({ data: text, bytes, startOffset, endOffset });

    for (const subscription of this.#subscriptions) {
      // Charge before delivering: a subscriber may ack from inside onOutput.
      subscription.account.charge(text.length);
      if (subscription.pending) {
        subscription.pending.push(text, endOffset);
      } else {
        this.#deliver(subscription, text, endOffset);
      }
    }
  }

  #deliver(subscription: Subscription, text: string, endOffset: number): void {
    try {
      subscription.subscriber.onOutput(text, endOffset);
    } catch (error) {
      // One broken subscriber must not stop the others or the pipeline.
      this.#logger.error('output subscriber failed', { id: this.id, error });
    }
  }

  readonly #parserHandler: OscParserHandler = {
    onOsc: (payload, endIndex, terminatorLength) => {
      const mark = parseTerminalMark(payload);
      if (mark === null) return;
      if (mark.kind === 'notification') {
        this.#notify(mark.title || this.#info.name, mark.body);
        return;
      }
      const end = this.#batchStartOffset + this.#prefixBytes(endIndex);
      // ESC ] payload terminator: works even when the sequence began in an earlier batch.
      const start = end - (2 + Buffer.byteLength(payload, 'utf8') + terminatorLength);
      this.#tracker.handle(mark, { start, end }, Date.now());
    },
    onBell: () => {
      // A beeping program would otherwise flood notifications: only the first bell counts until seen.
      if (!this.#info.needsAttention) this.#notify(this.#info.name, '');
    },
  };

  /** Bytes in the first `chars` chars of the current batch. Exact unless the batch held invalid UTF-8. */
  #prefixBytes(chars: number): number {
    if (this.#batchIsAscii) return chars;
    return Buffer.byteLength(this.#batchText.substring(0, chars), 'utf8');
  }

  #notify(title: string, body: string): void {
    // Like BEL: the first notification raises the flag and is shown; until the person has seen
    // the terminal, more of them would only flood the desktop (a loop printing OSC 9).
    if (this.#info.needsAttention) return;
    this.#info.needsAttention = true;
    this.#fireInfo();
    this.#onDidNotify.fire({ title, body });
  }

  // --- subscriptions --------------------------------------------------------------------------

  #goLive(subscription: Subscription): void {
    if (subscription.disposed) return;
    const pending = subscription.pending ?? [];
    subscription.pending = null;
    for (let index = 0; index < pending.length; index += 2) {
      if (subscription.disposed) return;
      this.#deliver(subscription, pending[index] as string, pending[index + 1] as number);
    }
  }

  #unsubscribe(subscription: Subscription): void {
    if (subscription.disposed) return;
    subscription.disposed = true;
    subscription.pending = null;
    this.#subscriptions.delete(subscription);
    // Releases its debt, which may resume the PTY.
    subscription.account.dispose();
  }

  // --- lifecycle ------------------------------------------------------------------------------

  #requireRunning(): IPty {
    if (this.#exit || !this.#pty) throw new ApiError('TERMINAL_EXITED', `terminal ${this.id} has exited`);
    return this.#pty;
  }

  /**
   * Flow control stops reading. node-pty destroys the PTY socket 200 ms after the process exits
   * if nobody reads it, dropping whatever the program wrote last; and its exit event comes only
   * after that. So while paused, watch for the process's end and drain at once when it comes.
   */
  #pauseReading(): void {
    const pty = this.#pty;
    if (!pty || this.#processGone) return;
    pty.pause();
    clearInterval(this.#exitWatch);
    this.#exitWatch = setInterval(() => {
      if (isProcessAlive(pty.pid)) return; // node-pty reaps its child at once, so an exited one is gone
      this.#processGone = true;
      clearInterval(this.#exitWatch);
      this.#exitWatch = undefined;
      pty.resume();
    }, exitWatchIntervalMs);
  }

  #resumeReading(): void {
    clearInterval(this.#exitWatch);
    this.#exitWatch = undefined;
    this.#pty?.resume();
  }

  #handleExit(exitCode: number, signal: number | undefined): void {
    if (this.#exit) return;
    clearInterval(this.#exitWatch);
    this.#exitWatch = undefined;
    // node-pty reports exit only after the PTY's read side closed, so all output is in the batcher.
    this.#batcher.end();
    this.#parser.reset();
    const signalName = signal ? (signalNames.get(signal) ?? `SIG${signal}`) : null;
    const status: ExitStatus = { exitCode: signalName ? null : exitCode, signal: signalName };
    this.#exit = status;
    const now = Date.now();
    Object.assign(this.#info, { state: 'exited', exitCode: status.exitCode, signal: status.signal, endedAt: now, runningCommand: null });
    this.#tracker.endOfStream(this.#offset, now);
    for (const listener of this.#ptyListeners) listener.dispose();
    this.#ptyListeners.length = 0;
    this.#logger.debug('terminal exited', { id: this.id, ...status });
    this.#fireInfo();
    this.#onDidExit.fire(status);
    this.#resolveExited(status);
  }

  async #escalateKill(): Promise<void> {
    const pty = this.#pty;
    if (!pty) return;
    // A paused PTY never reads its EOF, so the exit would never be seen: drain it.
    this.#flow.release();
    pty.resume();
    const steps: Array<[NodeJS.Signals, number]> = [
      ['SIGHUP', TerminalConstants.killTermDelayMs],
      ['SIGTERM', TerminalConstants.killForceDelayMs],
      ['SIGKILL', TerminalConstants.killForceDelayMs],
    ];
    for (const [signal, graceMs] of steps) {
      if (this.#disposed) return;
      const groups = sessionProcessGroups(pty.pid);
      if (groups.length === 0 && this.#exit) return;
      if (!this.#exit && !groups.includes(pty.pid)) groups.push(pty.pid);
      this.#logger.debug('signalling terminal', { id: this.id, signal, groups });
      const refused = signalProcessGroups(groups, signal);
      if (refused.length > 0) this.#logger.warn('not allowed to signal some processes of the terminal', { id: this.id, signal, refused });
      const deadline = Date.now() + graceMs;
      while (Date.now() < deadline && !this.#disposed) {
        await this.#sleep(20);
        if (this.#exit && sessionProcessGroups(pty.pid).length === 0) return;
      }
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.#sleeps.delete(entry);
          resolve();
        }, ms),
        resolve,
      };
      this.#sleeps.add(entry);
    });
  }

  #syncTrackerInfo(): void {
    this.#info.cwd = this.#tracker.cwd;
    this.#info.runningCommand = this.#exit ? null : this.#tracker.runningCommand;
    this.#info.lastCommand = this.#tracker.lastCommand as CommandSummary | null;
    this.#info.shellIntegration = this.#tracker.shellIntegration;
    this.#fireInfo();
  }

  #fireInfo(): void {
    if (this.#coalescingInfo) {
      this.#infoChangedInBatch = true;
      return;
    }
    if (this.#onDidChangeInfo.hasListeners) this.#onDidChangeInfo.fire(this.info);
  }
}

function isInRange(value: number, min: number, max: number): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}
