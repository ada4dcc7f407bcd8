/**
 * What one control-socket client may make the Hub do, so that a runaway or hostile client cannot
 * start shells without end or drown the Hub (issue 23: a burst of random `create`s once started 49
 * shells and the Hub answered `ping` 43 s late):
 *
 * - terminals: at most `perClient` running terminals opened by one connection, and `total` opened
 *   over the control socket by all clients together (the `socketMaxTerminalsPerClient` /
 *   `socketMaxTerminals` settings); `create` and `agent.start` past either are refused with
 *   TERMINAL_LIMIT, naming the limit and the setting. Terminals a person opens are never counted.
 * - `create`/`agent.start` are metered per connection by a token bucket (a burst, then a steady
 *   rate): past it, RATE_LIMITED with `retryAfterMs`.
 * - `exec` is metered by how many one connection has in progress at once (waiting for their turn
 *   or running), not by rate: a harness that runs commands one after another (hundreds a second
 *   of `true`) is no danger and is never slowed; a flood sent without waiting for answers is
 *   refused past the bound with RATE_LIMITED.
 * Nothing is started or typed for a refused request.
 *
 * The limits are checked before a command runs and cost O(1) per request, so a flood of refused
 * requests leaves the event loop free for everyone else.
 */
import { ControlConstants } from '../../common/constants.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import type { ControlPeer } from './commandRegistry.ts';
import { ControlError } from './protocol.ts';

export interface TerminalLimits {
  /** Running terminals opened over the control socket, all clients together. */
  total: number;
  /** …and by one connection. */
  perClient: number;
}

/** A token bucket: `burst` at once, then `perSecond`. */
class RateMeter {
  readonly burst: number;
  readonly perSecond: number;
  #tokens: number;
  #at: number;

  constructor(burst: number, perSecond: number, now: number) {
    this.burst = burst;
    this.perSecond = perSecond;
    this.#tokens = burst;
    this.#at = now;
  }

  /** Takes one token; returns 0 when taken, else how long until one is there (ms). */
  take(now: number): number {
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) / 1000) * this.perSecond);
    this.#at = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.#tokens) / this.perSecond) * 1000);
  }
}

interface ClientState {
  create: RateMeter;
  /** Its `exec`s admitted and not answered yet. */
  execs: number;
  /** Terminals this connection opened (pruned of those that are gone or exited when counted). */
  opened: Set<string>;
  /** Its terminal-opening requests admitted and not answered yet: they count, so a burst sent at once cannot slip past. */
  pending: number;
}

/** The commands that open a terminal. */
const opensTerminal = new Set(['create', 'agent.start']);

/** `settle` runs on the first call only (an answer is settled once, whichever path gets there first). */
function once(settle: (openedTerminalId: string | undefined) => void): (openedTerminalId: string | undefined) => void {
  let settled = false;
  return (openedTerminalId) => {
    if (settled) return;
    settled = true;
    settle(openedTerminalId);
  };
}

export class ClientLimits {
  readonly #ptyHost: PtyHost;
  readonly #limits: () => TerminalLimits;
  readonly #now: () => number;
  readonly #clients = new WeakMap<ControlPeer, ClientState>();
  /** All clients' admitted, unanswered terminal-opening requests. */
  #pending = 0;

  constructor(options: { ptyHost: PtyHost; limits: () => TerminalLimits; now?: () => number }) {
    this.#ptyHost = options.ptyHost;
    this.#limits = options.limits;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Throws the refusal (RATE_LIMITED / TERMINAL_LIMIT) when `cmd` from `peer` may not run now.
   * Otherwise returns what to call once the command is answered: with the terminal it opened
   * (counted while it runs), or undefined when it failed.
   */
  admit(cmd: string, peer: ControlPeer): (openedTerminalId: string | undefined) => void {
    const metered = opensTerminal.has(cmd) ? 'create' : cmd === 'exec' ? 'exec' : null;
    if (metered === null) return () => {};
    const client = this.#client(peer);
    if (metered === 'exec') {
      if (client.execs >= ControlConstants.execMaxInProgress) {
        throw new ControlError(
          `exec: this connection has ${client.execs} commands in progress, the most at once; wait for one to be answered`,
          'RATE_LIMITED',
          { limit: 'exec in progress', max: ControlConstants.execMaxInProgress },
        );
      }
      client.execs++;
      return once(() => client.execs--);
    }
    this.#checkTerminals(cmd, client);
    const waitMs = client.create.take(this.#now());
    if (waitMs > 0) {
      throw new ControlError(
        `${cmd}: this connection may open at most ${client.create.perSecond} terminals a second (${client.create.burst} at once); try again in ${waitMs} ms`,
        'RATE_LIMITED',
        { retryAfterMs: waitMs, limit: 'create rate' },
      );
    }
    client.pending++;
    this.#pending++;
    return once((openedTerminalId) => {
      client.pending--;
      this.#pending--;
      if (openedTerminalId !== undefined) client.opened.add(openedTerminalId);
    });
  }

  #checkTerminals(cmd: string, client: ClientState): void {
    const limits = this.#limits();
    for (const id of client.opened) if (this.#ptyHost.get(id)?.info.state !== 'running') client.opened.delete(id);
    const mine = client.opened.size + client.pending;
    if (mine >= limits.perClient) {
      throw new ControlError(
        `${cmd}: this connection has ${mine} terminals running, the most one client may open (setting socketMaxTerminalsPerClient: ${limits.perClient}); close one first`,
        'TERMINAL_LIMIT',
        { limit: 'socketMaxTerminalsPerClient', max: limits.perClient },
      );
    }
    let running = this.#pending;
    for (const info of this.#ptyHost.list()) if (info.state === 'running' && info.createdBy.kind === 'agent') running++;
    if (running >= limits.total) {
      throw new ControlError(
        `${cmd}: ${running} terminals opened over the control socket are running, the most all clients together may open (setting socketMaxTerminals: ${limits.total}); close one first`,
        'TERMINAL_LIMIT',
        { limit: 'socketMaxTerminals', max: limits.total },
      );
    }
  }

  #client(peer: ControlPeer): ClientState {
    let client = this.#clients.get(peer);
    if (!client) {
      const now = this.#now();
      client = {
        create: new RateMeter(ControlConstants.createBurst, ControlConstants.createPerSecond, now),
        execs: 0,
        opened: new Set(),
        pending: 0,
      };
      this.#clients.set(peer, client);
    }
    return client;
  }
}
