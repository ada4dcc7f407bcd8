/**
 * The parent's side of soak/hubProcess.ts: start a Hub in its own Node process on a fresh temp
 * HOME / SWITCHBOARD_HOME / workspace, ask it for measures, shut it down, and check afterwards that
 * none of its shells outlived it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogFill } from '../src/node/control/logFill.ts';
import { readProcText } from '../src/node/procFiles.ts';
import { parseProcStat } from '../src/node/pty/processGroups.ts';

export interface HubMeasure {
  rss: number;
  heapUsed: number;
  /** Buffers outside the V8 heap (output rings, socket chunks): freed memory RSS may not show as freed. */
  arrayBuffers: number;
  /** Whether a full GC ran first (the child runs with --expose-gc). */
  gc: boolean;
  fds: number;
  /** process.getActiveResourcesInfo() by kind: Timeout, TCPWrap, PipeWrap, FSReqCallback… */
  resources: Record<string, number>;
  terminals: number;
  terminalsRunning: number;
  /** Running terminals opened over the control socket (what socketMaxTerminals bounds). */
  socketTerminalsRunning: number;
  shellPids: number[];
  /** Control-socket connections the Hub holds open. */
  connections: number;
  /** Terminals opened over the socket since the Hub started (exited and closed ones included). */
  socketTerminalsStarted: number;
  /** How full the Hub's logs bounded by design are: their filling up is not a leak. */
  logs: BoundedLogs;
}

export interface BoundedLogs {
  /** The claws/2 bus log `subscribe` cursors replay from. */
  bus: LogFill;
  audit: LogFill;
  /** The command events `poll` serves. */
  commands: LogFill;
}

/** What a cheap look (no GC, no waiting) tells. */
export type HubCounts = Pick<HubMeasure, 'terminalsRunning' | 'socketTerminalsRunning' | 'connections' | 'shellPids' | 'socketTerminalsStarted' | 'logs'>;

/** The Hub's event-loop delay since the last look (ms). */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

export type ParentMessage = { type: 'loopDelay'; seq: number } | { type: 'measure'; seq: number } | { type: 'count'; seq: number } | { type: 'closeTerminals'; seq: number } | { type: 'shutdown'; seq: number };
export type ChildMessage =
  | { type: 'ready'; socketPath: string; pid: number }
  | { type: 'measure'; seq: number; measure: HubMeasure }
  | { type: 'count'; seq: number; counts: HubCounts }
  | { type: 'loopDelay'; seq: number; delay: LoopDelay }
  | { type: 'done'; seq: number }
  | { type: 'error'; seq: number; error: string };

const hubScript = new URL('hubProcess.ts', import.meta.url);

export class SoakHub {
  readonly socketPath: string;
  readonly pid: number;
  readonly root: string;
  readonly logPath: string;
  readonly #child: ChildProcess;
  readonly #waiting = new Map<number, (message: ChildMessage) => void>();
  #seq = 0;
  #exited: Promise<void>;
  /**
   * Every shell seen in a measure, by pid, with its start time: after shutdown none of them may
   * still run. The floods fork hundreds of processes a second, so a pid comes round again within
   * minutes (pid_max is 32 768 on many machines): a live pid is our shell only if it started when ours did.
   */
  readonly #shells = new Map<number, string | null>();

  private constructor(child: ChildProcess, ready: { socketPath: string; pid: number }, root: string, logPath: string, exited: Promise<void>) {
    this.#child = child;
    this.socketPath = ready.socketPath;
    this.pid = ready.pid;
    this.root = root;
    this.logPath = logPath;
    this.#exited = exited;
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'ready') return;
      const waiting = this.#waiting.get(message.seq);
      this.#waiting.delete(message.seq);
      waiting?.(message);
    });
  }

  static async start(options: { cpuProf?: string | undefined } = {}): Promise<SoakHub> {
    const root = mkdtempSync(join(tmpdir(), 'sb-soak-'));
    const home = join(root, 'home');
    const workspace = join(root, 'workspace');
    for (const dir of [home, workspace]) mkdirSync(dir, { recursive: true });
    // Shells that read an rc file read this one, never the machine's.
    writeFileSync(join(home, '.bashrc'), "PS1='$ '\n");
    const logPath = join(root, 'hub.log');
    const log = openSync(logPath, 'a');
    const execArgv = ['--expose-gc', ...(options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProf}`] : [])];
    const child = fork(hubScript, [], {
      execArgv,
      env: {
        HOME: home,
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        LANG: 'C.UTF-8',
        SHELL: '/bin/bash',
        SWITCHBOARD_HOME: join(root, 'data'),
        SOAK_DATA_DIR: join(root, 'data'),
        SOAK_WORKSPACE: workspace,
      },
      stdio: ['ignore', log, log, 'ipc'],
    });
    closeSync(log);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const ready = await new Promise<{ socketPath: string; pid: number }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the soak Hub did not start in 30 s; its log: ${logPath}`)), 30_000);
      child.on('message', (message: ChildMessage) => {
        if (message.type !== 'ready') return;
        clearTimeout(timer);
        resolve(message);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the soak Hub exited (${code}) before it was ready: ${readFileSync(logPath, 'utf8').slice(-2000)}`));
      });
    });
    return new SoakHub(child, ready, root, logPath, exited);
  }

  async measure(): Promise<HubMeasure> {
    const reply = await this.#ask('measure', 30_000);
    if (reply.type !== 'measure') throw new Error(`measure: ${JSON.stringify(reply)}`);
    this.#noteShells(reply.measure.shellPids);
    return reply.measure;
  }

  /** Terminals and connections now, without disturbing the Hub (no GC): for sampling under load. */
  async count(): Promise<HubCounts> {
    const reply = await this.#ask('count', 30_000);
    if (reply.type !== 'count') throw new Error(`count: ${JSON.stringify(reply)}`);
    this.#noteShells(reply.counts.shellPids);
    return reply.counts;
  }

  /** The Hub's event-loop delay since the previous call (or the start). */
  async loopDelay(): Promise<LoopDelay> {
    const reply = await this.#ask('loopDelay', 30_000);
    if (reply.type !== 'loopDelay') throw new Error(`loopDelay: ${JSON.stringify(reply)}`);
    return reply.delay;
  }

  /**
   * Wait (up to `timeoutMs`) until the Hub holds no control connection: a client that closed its
   * socket is gone for the Hub only once it has read the close. Returns the count then.
   */
  async connectionsGone(timeoutMs = 10_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { connections } = await this.count();
      if (connections === 0 || Date.now() > deadline) return connections;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Close every terminal (as a person closing all panes would). */
  async closeTerminals(): Promise<void> {
    await this.#ask('closeTerminals', 60_000);
  }

  /** Polite shutdown; returns the shells seen during the run that still live afterwards (should be none). */
  async shutdown(): Promise<number[]> {
    if (this.#child.exitCode === null && this.#child.connected) await this.#ask('shutdown', 30_000).catch(() => undefined);
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 10_000);
    await this.#exited;
    clearTimeout(timer);
    return [...this.#shells].filter(([pid, started]) => isAlive(pid) && processStart(pid) === started).map(([pid]) => pid);
  }

  #noteShells(pids: number[]): void {
    for (const pid of pids) if (!this.#shells.has(pid)) this.#shells.set(pid, processStart(pid));
  }

  /** Remove the temp HOME (after shutdown). */
  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }

  /** Lines the Hub logged (its stderr). */
  logLines(): number {
    try {
      return readFileSync(this.logPath, 'utf8').split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  }

  #ask(type: ParentMessage['type'], timeoutMs: number): Promise<ChildMessage> {
    const seq = ++this.#seq;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(seq);
        reject(new Error(`the soak Hub did not answer ${type} in ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiting.set(seq, (message) => {
        clearTimeout(timer);
        if (message.type === 'error') reject(new Error(`soak Hub: ${message.error}`));
        else resolve(message);
      });
      this.#child.send({ type, seq } satisfies ParentMessage);
    });
  }
}

/** When process `pid` started (processGroups.ts, startTime); null where there is no /proc or no such process. */
export function processStart(pid: number): string | null {
  return parseProcStat(readProcText(`/proc/${pid}/stat`) ?? '')?.startTime ?? null;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
