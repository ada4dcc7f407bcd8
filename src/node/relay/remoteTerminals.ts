/**
 * Terminals a remote viewer opens (`terminalOpen` … `terminalExit`). Each is an ordinary Hub
 * terminal (PtyHost, mirror, ring, history) created with `createdBy: {kind:'remote', name}`, so
 * the local UI lists it as a pane marked remote; this class adds the relay's rules:
 * - at most `maxRemoteTerminals` at once (`Terminal limit reached`);
 * - `cwd` absolute and an existing directory after resolving symlinks (empty → $HOME);
 * - cols clamped to 20–300, rows to 5–100 (open and resize);
 * - an idle timer reset only by input (default 5 min, reason `disconnect_timeout`) and a maximum
 *   lifetime (default 4 h, `max_lifetime`). Input from anyone counts — the viewer, a person typing
 *   in the app's pane, an agent: the timer is there to reap terminals nobody uses any more, and one
 *   used locally is not abandoned however long ago its viewer typed;
 * - the terminal belongs to the channel that opened it (others reach it only if it is shared);
 * - input its viewer sends before `terminalOpened` (possible when it chose the id) is held until
 *   the shell is spawned, then written first;
 * - when it ends, `terminalExit` with the reason, and the pane is removed.
 */
import { randomBytes } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { TerminalId } from '../../common/api/contractTypes.ts';
import { RelayConstants, TerminalConstants } from '../../common/constants.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { encodeFrame, rfc3339 } from '../../common/protocol/relay/frames.ts';
import type { RelayFields, TerminalExitReason } from '../../common/protocol/relay/messages.ts';
import type { ILogger } from '../logger.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import type { ExitStatus, PtySession } from '../pty/ptySession.ts';
import type { RelayLink } from './relayLink.ts';

export interface RemoteShell {
  file: string;
  args?: string[];
  shellIntegration?: boolean;
}

export interface RemoteTerminal {
  readonly id: string;
  readonly sessionId: string;
  readonly channelId: string;
  readonly viewerName: string;
  readonly session: PtySession;
  /** Set when we end it, so the exit frame says why. */
  endReason: TerminalExitReason | undefined;
  idleMs: number;
  idleTimer: NodeJS.Timeout | undefined;
  lifetimeTimer: NodeJS.Timeout | undefined;
  exitListener: IDisposable;
  /** Any input written to the terminal (viewer, app, agent) resets the idle timer. */
  inputListener: IDisposable;
}

export interface RemoteTerminalsOptions {
  ptyHost: PtyHost;
  /** The link that is up now, if any. */
  link: () => RelayLink | undefined;
  homeDir: string;
  logger: ILogger;
  shell?: RemoteShell;
  maxTerminals?: number;
  /** A remote terminal ended: the client ends every viewer stream of it with this exit frame. */
  onExit: (terminal: RemoteTerminal, exitFrameFor: (channelId: string) => string) => void;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** Input for a terminal still starting, from the channel opening it. */
interface StartingInput {
  readonly channelId: string;
  readonly data: string[];
  bytes: number;
  /** Once some was refused, the rest is too: writing what came before and after a hole would type something nobody typed. */
  refused: boolean;
}

export type HoldInputResult = 'held' | 'refused' | 'not-starting';

export class RemoteTerminals implements IDisposable {
  readonly #options: RemoteTerminalsOptions;
  readonly #terminals = new Map<string, RemoteTerminal>();
  /** Opens still checking their parameters or spawning: they count against the limit. */
  #opening = 0;
  /**
   * Opens under an id the viewer chose: it knows the id before `terminalOpened`, and may type at
   * once. What it types meanwhile waits here instead of being refused as input for an unknown terminal.
   */
  readonly #starting = new Map<string, StartingInput>();
  #disposed = false;

  constructor(options: RemoteTerminalsOptions) {
    this.#options = options;
  }

  get(id: string): RemoteTerminal | undefined {
    return this.#terminals.get(id);
  }

  get count(): number {
    return this.#terminals.size;
  }

  list(): RemoteTerminal[] {
    return [...this.#terminals.values()];
  }

  /** Answer a `terminalOpen`: `terminalOpened`, or `terminalError` with the spec's reason. */
  async open(request: RelayFields<'terminalOpen'>): Promise<void> {
    const { requestId, sessionId, channelId } = request;
    const fail = (error: string, terminalId?: string) => {
      this.#send(encodeFrame('terminalError', { requestId, sessionId, channelId, error, ...(terminalId ? { terminalId } : {}) }));
    };
    if (this.#disposed) return;
    const max = this.#options.maxTerminals ?? RelayConstants.maxRemoteTerminals;
    if (this.#terminals.size + this.#opening >= max) return fail('Terminal limit reached', request.terminalId);

    let terminalId = request.terminalId;
    if (terminalId !== undefined && terminalId !== '') {
      if (!TerminalId.safeParse(terminalId).success) return fail('invalid terminalId: use 1-64 of [A-Za-z0-9_.-]', terminalId);
      if (this.#options.ptyHost.get(terminalId) || this.#starting.has(terminalId)) return fail(`terminal id already in use: ${terminalId}`, terminalId);
      this.#starting.set(terminalId, { channelId, data: [], bytes: 0, refused: false });
    } else {
      terminalId = `r-${randomBytes(4).toString('hex')}`;
    }

    this.#opening++;
    let session: PtySession;
    let cwd: string;
    try {
      const resolved = await this.#resolveCwd(request.cwd);
      if (!resolved.ok) return fail(resolved.error, terminalId);
      cwd = resolved.cwd;
      const viewerName = (request.viewerName ?? '').trim().slice(0, 200) || 'remote viewer';
      try {
        const shell = this.#options.shell;
        session = await this.#options.ptyHost.create({
          id: terminalId,
          cwd,
          cols: clamp(request.cols, RelayConstants.remoteMinCols, RelayConstants.remoteMaxCols),
          rows: clamp(request.rows, RelayConstants.remoteMinRows, RelayConstants.remoteMaxRows),
          createdBy: { kind: 'remote', name: viewerName },
          ...(shell ? { file: shell.file, args: shell.args ?? [], ...(shell.shellIntegration !== undefined ? { shellIntegration: shell.shellIntegration } : {}) } : {}),
        });
      } catch (error) {
        this.#options.logger.warn('cannot start a terminal for a remote viewer', { error: (error as Error).message });
        return fail('Unable to start shell', terminalId);
      }
      if (this.#disposed) {
        void this.#options.ptyHost.close(terminalId).catch(() => {});
        return;
      }
      const idleMs = request.idleTimeoutMs ? clamp(request.idleTimeoutMs, RelayConstants.remoteMinTimeoutMs, RelayConstants.remoteMaxTimeoutMs) : RelayConstants.remoteIdleTimeoutMs;
      const lifetimeMs = request.maxLifetimeMs
        ? clamp(request.maxLifetimeMs, RelayConstants.remoteMinTimeoutMs, RelayConstants.remoteMaxTimeoutMs)
        : RelayConstants.remoteMaxLifetimeMs;
      const terminal: RemoteTerminal = {
        id: terminalId,
        sessionId,
        channelId,
        viewerName,
        session,
        endReason: undefined,
        idleMs,
        idleTimer: undefined,
        lifetimeTimer: undefined,
        exitListener: session.onDidExit((status) => this.#onExit(terminal, status)),
        inputListener: session.onDidWrite(() => this.#resetIdle(terminal)),
      };
      terminal.lifetimeTimer = setTimeout(() => this.end(terminalId, 'max_lifetime'), lifetimeMs);
      this.#terminals.set(terminalId, terminal);
      this.#resetIdle(terminal);
      // Before any later input, which finds the terminal from here on; the PTY holds it for the shell.
      const held = this.#starting.get(terminalId);
      if (held && held.data.length > 0) this.#writeHeld(session, held.data.join(''));
      this.#options.logger.info('remote viewer opened a terminal', { terminalId, viewer: viewerName, cwd });
    } finally {
      this.#opening--;
      // Held input of an open that failed goes with it: the viewer got terminalError.
      this.#starting.delete(terminalId);
    }

    const link = this.#options.link();
    if (!link) {
      // The link dropped while the shell started: nobody can know this terminal's id.
      this.end(terminalId, 'spawn_error');
      return;
    }
    link.send(
      // `title` (a Switchboard extension): the name the app gives it (`bash 2`), so both show one name.
      encodeFrame('terminalOpened', {
        requestId,
        terminalId,
        sessionId,
        channelId,
        shell: session.info.file,
        cwd,
        startedAt: rfc3339(session.info.createdAt),
        title: session.info.name,
      }),
    );
    // After terminalOpened (control frames go first), output from the terminal's first byte.
    link.streams.open(session, { terminalId, sessionId, channelId, from: 'beginning' });
  }

  /**
   * Input for a terminal the viewer on `channelId` is still opening under an id it chose: held until
   * its shell is spawned, or refused past TerminalConstants.typeAheadMaxBytes. `not-starting` when
   * no such open is in progress for that channel (then it is input for an existing terminal, or refused).
   */
  holdInput(terminalId: string, channelId: string, data: string): HoldInputResult {
    const starting = this.#starting.get(terminalId);
    if (!starting || starting.channelId !== channelId) return 'not-starting';
    const bytes = Buffer.byteLength(data, 'utf8');
    if (starting.refused || starting.bytes + bytes > TerminalConstants.typeAheadMaxBytes) {
      starting.refused = true;
      return 'refused';
    }
    starting.data.push(data);
    starting.bytes += bytes;
    return 'held';
  }

  /** Input from a viewer: resets the idle timer (as every write to the terminal does, whoever typed). */
  noteInput(id: string): void {
    const terminal = this.#terminals.get(id);
    if (terminal) this.#resetIdle(terminal);
  }

  /** End the terminal for `reason` (the kill escalation); the exit frame follows when the process is gone. */
  end(id: string, reason: TerminalExitReason): void {
    const terminal = this.#terminals.get(id);
    if (!terminal) return;
    terminal.endReason ??= reason;
    this.#options.ptyHost.close(id).catch((error: unknown) => this.#options.logger.warn('closing a remote terminal failed', { id, error }));
  }

  /** End every remote terminal (`daemon_shutdown`) and wait until they are gone. */
  async endAll(reason: TerminalExitReason): Promise<void> {
    const closing = [...this.#terminals.keys()].map((id) => {
      this.#terminals.get(id)!.endReason ??= reason;
      return this.#options.ptyHost.close(id).catch(() => {});
    });
    await Promise.all(closing);
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const terminal of this.#terminals.values()) {
      this.#clearTimers(terminal);
      terminal.exitListener.dispose();
      terminal.inputListener.dispose();
      // The Hub owns the PTYs; ask it to end them, do not wait.
      this.#options.ptyHost.close(terminal.id).catch(() => {});
    }
    this.#terminals.clear();
  }

  async #resolveCwd(cwd: string | undefined): Promise<{ ok: true; cwd: string } | { ok: false; error: string }> {
    if (cwd === undefined || cwd === '') return { ok: true, cwd: this.#options.homeDir };
    if (!isAbsolute(cwd)) return { ok: false, error: 'cwd must be absolute' };
    try {
      const real = await realpath(cwd);
      if (!(await stat(real)).isDirectory()) return { ok: false, error: 'cwd is not a directory' };
      return { ok: true, cwd: real };
    } catch {
      return { ok: false, error: 'cwd is not a directory' };
    }
  }

  #writeHeld(session: PtySession, data: string): void {
    try {
      session.write(data);
    } catch (error) {
      // The shell ended at once: its exit frame follows, and terminalOpened must still go out.
      this.#options.logger.warn('input held for a starting remote terminal was not written', { id: session.id, error: (error as Error).message });
    }
  }

  #resetIdle(terminal: RemoteTerminal): void {
    clearTimeout(terminal.idleTimer);
    terminal.idleTimer = setTimeout(() => this.end(terminal.id, 'disconnect_timeout'), terminal.idleMs);
  }

  #clearTimers(terminal: RemoteTerminal): void {
    clearTimeout(terminal.idleTimer);
    clearTimeout(terminal.lifetimeTimer);
  }

  #onExit(terminal: RemoteTerminal, status: ExitStatus): void {
    if (this.#terminals.get(terminal.id) !== terminal) return;
    this.#terminals.delete(terminal.id);
    this.#clearTimers(terminal);
    terminal.exitListener.dispose();
    terminal.inputListener.dispose();
    const reason = terminal.endReason ?? 'process_exit';
    const endedAt = rfc3339(terminal.session.info.endedAt ?? Date.now());
    const exitFrameFor = (channelId: string) =>
      encodeFrame('terminalExit', {
        terminalId: terminal.id,
        sessionId: terminal.sessionId,
        channelId,
        ...(status.exitCode !== null ? { exitCode: status.exitCode } : {}),
        ...(status.signal !== null ? { signal: status.signal } : {}),
        reason,
        endedAt,
      });
    this.#options.logger.info('remote terminal ended', { terminalId: terminal.id, reason, ...status });
    this.#options.onExit(terminal, exitFrameFor);
    // A remote terminal's pane goes away with it (nobody may be at this machine to close it).
    if (this.#options.ptyHost.get(terminal.id)) this.#options.ptyHost.close(terminal.id).catch(() => {});
  }

  #send(frame: string): void {
    this.#options.link()?.send(frame);
  }
}
