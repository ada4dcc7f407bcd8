/**
 * The dev servers of every terminal (TerminalInfo.servers): TCP ports that processes of the
 * terminal's process tree listen on, on a loopback or wildcard address, merged with the local
 * URLs the program printed (printedUrls.ts).
 *
 * When to look (README, "Dev servers"): there is no event for "a process started listening", so
 * a terminal is scanned — its process tree, the system's socket tables, and the fds of its
 * processes only when a new listening socket appeared — after anything that may start or stop a
 * server (a command starting or ending, a printed URL, typing without shell integration), then
 * again with a backed-off interval while a process other than its shell runs. Plain output is a
 * weaker hint: it asks for a look no sooner than that backed-off interval, so a pane that keeps
 * printing is looked at about once per maxIntervalMs, not after every chunk (20 flooding panes
 * once spent a third of the Hub's time on these looks: the soak in docs/reliability.md). A shell
 * alone, with no server, is not looked at again until one of those happens: idle terminals cost
 * nothing.
 *
 * Rules:
 * - Counted addresses: 0.0.0.0 and :: (every interface), 127.0.0.0/8 and ::1 (loopback). A server
 *   on another address (a LAN IP only) is not a local dev server and is left out.
 * - One server per port: IPv4 and IPv6 sockets on the same port are one server (host: the wildcard
 *   one if any).
 * - A printed URL and a listening port that match (same port) are one server, with the printed
 *   URL (its scheme, host and path); without one, http://localhost:PORT/. A printed URL whose port
 *   no process of the pane holds counts only while something on the machine listens on it, that
 *   another pane's process does not hold (a server in a container, a server run with sudo), with
 *   pid null. Where no socket table can be read (not Linux), printed URLs count until their
 *   command ends.
 * - Linux reads /proc (listeningSockets.ts); macOS asks `lsof` for the tree's listeners (the tree
 *   from `ps`); Windows has printed URLs only.
 * - Printed URLs are forgotten when a new command starts (shell integration).
 */
import { basename } from 'node:path';
import type { DevServer } from '../../common/api/devServerContract.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { processTree, readArgv } from '../agents/agentProcess.ts';
import type { ILogger } from '../logger.ts';
import type { PtySession } from '../pty/ptySession.ts';
import {
  type ListeningSocket,
  listenersOfProcesses,
  processListenersSupported,
  readListeningSockets,
  socketInodesOf,
  socketTablesSupported,
} from './listeningSockets.ts';
import { type PrintedUrl, PrintedUrlScanner } from './printedUrls.ts';

export const ServerMonitorConstants = {
  /** First look after a trigger, and the shortest time between two looks at one terminal. */
  minIntervalMs: 100,
  /**
   * Longest time between two looks while a process other than the shell runs: the interval
   * doubles from minIntervalMs up to this, so a server that opens its port silently long after
   * its command started is seen within 1 s (this plus one scan, a few ms). Looks this far apart
   * are taken on a clock every terminal shares (multiples of this since the epoch), so terminals
   * whose programs run quietly for hours share one read of the socket tables per interval
   * (socketTableReuseMs) rather than each reading them on a phase of its own (twenty idle agents
   * had them read ~6 times a second).
   */
  maxIntervalMs: 800,
  /** Output and typing come in bursts: one look for a burst. */
  triggerDelayMs: 30,
  /**
   * After a trigger, looks go on this long even while the shell is found alone: a command typed
   * into a shell still starting (or busy reading its line) has no process yet at the first look,
   * and a silent server started by it gave no later hint, so it was never seen.
   */
  triggerWatchMs: 3_000,
  /** A URL at the very end of the output is taken as complete after this long without more output. */
  pendingUrlMs: 60,
  /** A process tree larger than this is looked at only this far (a build with hundreds of workers). */
  maxProcesses: 64,
  /** Printed URLs remembered per terminal (the newest win). */
  maxPrintedUrls: 16,
  /**
   * Terminals that look within this long share one read of the socket tables. A read of
   * /proc/net/tcp and tcp6 costs the kernel ~4 ms each however few sockets there are (it walks
   * the whole hash table), on the Hub's main thread: 64 terminals running commands, each looking
   * every 800 ms, read them ~40 times a second with a 25 ms window (a third of a core; the soak's
   * hostile burst saw 2.4 s of it in 30 s). Kept under maxIntervalMs's slack so a port is still
   * seen within 1 s of opening (800 ms + this + a scan).
   */
  socketTableReuseMs: 150,
} as const;

/** Time to the next multiple of maxIntervalMs since the epoch: the tick backed-off looks share. */
function untilSharedTick(): number {
  return ServerMonitorConstants.maxIntervalMs - (Date.now() % ServerMonitorConstants.maxIntervalMs);
}

/** Programs that are a shell: alone at the root, without children, nothing listens. */
const shellNames = /^-?(bash|zsh|fish|sh|dash|ash|ksh|mksh|tcsh|csh|nu|elvish|xonsh|pwsh|busybox)$/;

export interface ServerMonitorOptions {
  logger: ILogger;
}

export class ServerMonitor implements IDisposable {
  readonly #logger: ILogger;
  readonly #watches = new Set<ServerWatch>();
  #sockets: { at: number; read: Promise<ListeningSocket[]> } | null = null;
  /** The Hub's own listening sockets among those known when its fds were last read (see #hubListening). */
  #hubListening: { known: ReadonlySet<number>; hub: Promise<ReadonlySet<number>> } | null = null;
  #hubFdReads = 0;
  #scans = 0;
  #tableReads = 0;
  #disposed = false;

  constructor(options: ServerMonitorOptions) {
    this.#logger = options.logger;
  }

  /** Follow a terminal's servers (into `session.setServers`) until the returned disposable or the monitor is disposed. */
  watch(session: PtySession): IDisposable {
    if (this.#disposed) return { dispose() {} };
    const watch = new ServerWatch(session, {
      logger: this.#logger,
      listening: () => this.#listening(),
      hubListening: (listening) => this.#hubListeningInodes(listening),
      heldElsewhere: (port) => this.#heldElsewhere(port, watch),
      noteScan: () => this.#scans++,
    });
    this.#watches.add(watch);
    watch.trigger();
    return {
      dispose: () => {
        watch.dispose();
        this.#watches.delete(watch);
      },
    };
  }

  /** Looks taken so far, over all terminals (for benchmarks and tests: idle terminals add none). */
  get scans(): number {
    return this.#scans;
  }

  /** Reads of the system's socket tables so far (for benchmarks and tests: looks share them). */
  get tableReads(): number {
    return this.#tableReads;
  }

  /** Times the Hub's own fds were read (for tests: only when a listening socket appeared, see #hubListeningInodes). */
  get hubFdReads(): number {
    return this.#hubFdReads;
  }

  /** Terminals with a look planned or under way; 0 when every terminal is a shell alone at rest. */
  get looking(): number {
    let count = 0;
    for (const watch of this.#watches) if (watch.looking) count++;
    return count;
  }

  dispose(): void {
    this.#disposed = true;
    for (const watch of this.#watches) watch.dispose();
    this.#watches.clear();
  }

  #listening(): Promise<ListeningSocket[]> {
    const now = Date.now();
    if (this.#sockets && now - this.#sockets.at < ServerMonitorConstants.socketTableReuseMs) return this.#sockets.read;
    const read = readListeningSockets();
    this.#tableReads++;
    this.#sockets = { at: now, read };
    return read;
  }

  /**
   * Which of these listening sockets are the Hub's own (its HTTP server, the IDE bridge…). Its fds
   * are read again only when a listening socket appeared that was not there at the last read: a
   * Hub with hundreds of connections has hundreds of fds, a readlink each, and terminals running
   * commands asked for them on every look at a new process (the soak: about a second of the Hub's
   * main thread in 20 s). Any socket the Hub listens on shows in the table first, so an unchanged
   * table means an unchanged answer.
   */
  #hubListeningInodes(listening: ReadonlySet<number>): Promise<ReadonlySet<number>> {
    const cached = this.#hubListening;
    if (cached && [...listening].every((inode) => cached.known.has(inode))) return cached.hub;
    this.#hubFdReads++;
    const hub = socketInodesOf(process.pid).then((inodes) => new Set(inodes.filter((inode) => listening.has(inode))));
    this.#hubListening = { known: new Set(listening), hub };
    return hub;
  }

  /** Another terminal's process holds `port`: a URL printed here for it is not this terminal's server. */
  #heldElsewhere(port: number, asking: ServerWatch): boolean {
    for (const watch of this.#watches) if (watch !== asking && watch.holds(port)) return true;
    return false;
  }
}

interface WatchDeps {
  logger: ILogger;
  listening(): Promise<ListeningSocket[]>;
  /** The Hub's own sockets among `listening` (inodes). */
  hubListening(listening: ReadonlySet<number>): Promise<ReadonlySet<number>>;
  heldElsewhere(port: number): boolean;
  noteScan(): void;
}

/** One terminal's servers. */
class ServerWatch implements IDisposable {
  readonly #session: PtySession;
  readonly #deps: WatchDeps;
  readonly #listeners: IDisposable[];
  readonly #scanner = new PrintedUrlScanner();
  /** Printed URLs by port, oldest first. */
  readonly #printed = new Map<number, PrintedUrl>();
  /** Listening sockets found in the tree: inode → owner. */
  readonly #owned = new Map<number, { pid: number; socket: ListeningSocket }>();
  #lastInodes = new Set<number>();
  #lastTree = new Set<number>();
  #timer: NodeJS.Timeout | undefined;
  #timerDue = 0;
  #running = false;
  #again = false;
  #lastRunAt = 0;
  #lastOutputAt = 0;
  #interval: number = ServerMonitorConstants.minIntervalMs;
  /** The last look found the shell alone at the root: output at its prompt is only its echo. */
  #shellAlone = false;
  /** Until when looks go on after the last trigger, whatever they find. */
  #watchUntil = 0;
  #disposed = false;

  constructor(session: PtySession, deps: WatchDeps) {
    this.#session = session;
    this.#deps = deps;
    this.#listeners = [
      session.onDidOutput(({ data }) => {
        this.#lastOutputAt = Date.now();
        const urls = this.#scanner.push(data);
        for (const url of urls) this.#remember(url);
        if (urls.length > 0 || this.#scanner.hasPending) this.trigger();
        // A shell at its prompt with nothing under it only echoes typing; anything else may be a server starting.
        else if (!(this.#shellAlone && session.atPrompt)) this.#nudge();
      }),
      session.onDidWrite(() => {
        // With shell integration a command's start is announced; without, typing is the hint.
        if (!session.info.shellIntegration) this.trigger();
      }),
      session.onDidStartCommand(() => {
        this.#printed.clear();
        this.#scanner.reset();
        this.trigger();
      }),
      session.onDidCommand(() => {
        // Without a socket table, a printed URL lives as long as its command.
        if (!socketTablesSupported) this.#printed.clear();
        this.trigger();
      }),
      session.onDidExit(() => {
        this.#stop();
        session.setServers([]);
      }),
    ];
  }

  get looking(): boolean {
    return this.#timer !== undefined || this.#running;
  }

  /** A process of this terminal listens on `port`. */
  holds(port: number): boolean {
    for (const { socket } of this.#owned.values()) if (socket.port === port) return true;
    return false;
  }

  /** Something may have changed: look soon, and often again for a while. */
  trigger(): void {
    this.#interval = ServerMonitorConstants.minIntervalMs;
    this.#watchUntil = Date.now() + ServerMonitorConstants.triggerWatchMs;
    this.#schedule(ServerMonitorConstants.triggerDelayMs);
  }

  /**
   * Output: something may be starting, but output comes in floods — look no sooner than the
   * backed-off interval after the last look (the first output after a quiet spell still gets a
   * look within triggerDelayMs), and never plan a second look while one runs.
   */
  #nudge(): void {
    if (this.#running) return;
    this.#schedule(Math.max(ServerMonitorConstants.triggerDelayMs, this.#lastRunAt + this.#interval - Date.now()));
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#stop();
    for (const listener of this.#listeners) listener.dispose();
    this.#listeners.length = 0;
  }

  #stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #remember(url: PrintedUrl): void {
    this.#printed.delete(url.port);
    this.#printed.set(url.port, url);
    if (this.#printed.size > ServerMonitorConstants.maxPrintedUrls) this.#printed.delete(this.#printed.keys().next().value!);
  }

  #schedule(delayMs: number): void {
    if (this.#disposed || this.#session.exitStatus) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    const wait = Math.max(delayMs, this.#lastRunAt + ServerMonitorConstants.minIntervalMs - Date.now(), 0);
    if (this.#timer) {
      // An earlier look already planned stays; a later one is brought forward.
      if (this.#timerDue <= Date.now() + wait) return;
      clearTimeout(this.#timer);
    }
    this.#timerDue = Date.now() + wait;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#run();
    }, wait);
  }

  async #run(): Promise<void> {
    if (this.#disposed) return;
    this.#running = true;
    this.#lastRunAt = Date.now();
    this.#deps.noteScan();
    let keepLooking = true;
    try {
      keepLooking = await this.#scan();
    } catch (error) {
      if (!this.#disposed) this.#deps.logger.warn('dev server scan failed', { id: this.#session.id, error: String(error) });
    } finally {
      this.#running = false;
    }
    if (this.#again) {
      this.#again = false;
      this.#schedule(0);
    } else if (keepLooking) {
      // Backed off all the way: on the shared clock (maxIntervalMs, above), never later than the interval.
      this.#schedule(this.#interval >= ServerMonitorConstants.maxIntervalMs ? untilSharedTick() : this.#interval);
    }
    // Backed off after every look (a trigger or a changed server list starts over): output nudges follow it too.
    this.#interval = Math.min(this.#interval * 2, ServerMonitorConstants.maxIntervalMs);
  }

  /** Look once; false when nothing can change until a trigger (the shell alone, no server). */
  async #scan(): Promise<boolean> {
    const session = this.#session;
    const pid = session.info.pid;
    if (pid === null || session.exitStatus) return false;
    if (Date.now() - this.#lastOutputAt >= ServerMonitorConstants.pendingUrlMs) {
      const pending = this.#scanner.takePending();
      if (pending) this.#remember(pending);
    }
    const [tree, sockets] = await Promise.all([processTree(pid, ServerMonitorConstants.maxProcesses), this.#deps.listening()]);
    if (this.#disposed || session.exitStatus) return false;
    await this.#attribute(tree, sockets);
    if (this.#disposed || session.exitStatus) return false;
    const servers = this.#merge(sockets, session.info.servers ?? []);
    const previous = session.info.servers ?? [];
    const changed = !sameServers(previous, servers);
    if (changed) {
      session.setServers(servers);
      this.#interval = ServerMonitorConstants.minIntervalMs;
    }
    // Asked each time: `exec node server.js` turns the shell into the server.
    this.#shellAlone = tree.length === 1 && (await this.#rootIsShell(pid));
    return !(this.#shellAlone && servers.length === 0 && !this.#scanner.hasPending) || Date.now() < this.#watchUntil;
  }

  async #rootIsShell(pid: number): Promise<boolean> {
    if (!socketTablesSupported) return shellNames.test(basename(this.#session.info.file));
    const argv = await readArgv(pid);
    return argv !== null && shellNames.test(basename(argv[0] ?? ''));
  }

  /** Which listening sockets belong to the tree: fds are read only for new sockets or new processes. */
  async #attribute(tree: number[], sockets: ListeningSocket[]): Promise<void> {
    if (processListenersSupported) {
      // macOS: lsof names the tree's listeners directly (no inodes to match; keys are only for this map).
      const listeners = await listenersOfProcesses(tree);
      this.#owned.clear();
      listeners.forEach(({ pid, host, port }, index) => this.#owned.set(-(index + 1), { pid, socket: { host, port, inode: 0 } }));
      return;
    }
    const byInode = new Map(sockets.map((socket) => [socket.inode, socket]));
    const treeSet = new Set(tree);
    for (const [inode, owner] of this.#owned) if (!byInode.has(inode) || !treeSet.has(owner.pid)) this.#owned.delete(inode);
    const newSockets = sockets.some((socket) => !this.#lastInodes.has(socket.inode));
    const toRead = newSockets ? tree : tree.filter((member) => !this.#lastTree.has(member));
    this.#lastInodes = new Set(byInode.keys());
    this.#lastTree = treeSet;
    if (toRead.length === 0 || byInode.size === 0) return;
    // The Hub's own sockets (its HTTP server, the IDE bridge…) are never a pane's server, though a
    // pane's process can hold them: between fork and exec a new shell has every fd of the Hub (they
    // close on exec), and a look at that moment would list the app's own ports as the pane's.
    const [hubs, ...fdLists] = await Promise.all([this.#deps.hubListening(this.#lastInodes), ...toRead.map((member) => socketInodesOf(member))]);
    fdLists.forEach((inodes, index) => {
      for (const inode of inodes) {
        const socket = byInode.get(inode);
        if (socket && !hubs.has(inode) && !this.#owned.has(inode)) this.#owned.set(inode, { pid: toRead[index]!, socket });
      }
    });
  }

  #merge(sockets: ListeningSocket[], previous: readonly DevServer[]): DevServer[] {
    const now = Date.now();
    const byPort = new Map<number, { host: string; pid: number | null }>();
    for (const { pid, socket } of this.#owned.values()) {
      const seen = byPort.get(socket.port);
      // The wildcard socket names the server best (it is reachable on every address).
      if (!seen || (isWildcard(socket.host) && !isWildcard(seen.host))) byPort.set(socket.port, { host: socket.host, pid: seen?.pid ?? pid });
    }
    if (socketTablesSupported) {
      const listenedOn = new Map<number, string>();
      for (const socket of sockets) if (!listenedOn.has(socket.port) || isWildcard(socket.host)) listenedOn.set(socket.port, socket.host);
      for (const url of this.#printed.values()) {
        const host = listenedOn.get(url.port);
        if (host !== undefined && !byPort.has(url.port) && !this.#deps.heldElsewhere(url.port)) byPort.set(url.port, { host, pid: null });
      }
    } else {
      for (const url of this.#printed.values()) if (!byPort.has(url.port)) byPort.set(url.port, { host: url.host, pid: null });
    }
    const since = new Map(previous.map((server) => [server.port, server.since]));
    return [...byPort.entries()]
      .sort(([a], [b]) => a - b)
      .map(([port, { host, pid }]) => ({
        host,
        port,
        url: this.#printed.get(port)?.url ?? `http://localhost:${port}/`,
        pid,
        since: since.get(port) ?? now,
      }));
  }
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

function sameServers(a: readonly DevServer[], b: readonly DevServer[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((server, index) => {
    const other = b[index]!;
    return server.port === other.port && server.host === other.host && server.url === other.url && server.pid === other.pid;
  });
}
