/**
 * `wait`: block until something happens in a terminal — a regex matches its new output (ANSI
 * stripped), its process exits, its output goes quiet, or the shell is back at a prompt — or
 * until the timeout. The first condition met wins.
 *
 * `since` (an output offset, e.g. from a `send` response) closes the race between acting and
 * waiting: output and commands from that offset on count, even if they came before the wait.
 *
 * A pattern never matches the terminal's echo of what an agent sent (echoGate.ts): after `send
 * 'sleep 2; echo done'`, `wait --pattern done` waits for the command, not the typed line.
 */
import { StringDecoder } from 'node:string_decoder';
import { ControlConstants } from '../../common/constants.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import type { PtySession } from '../pty/ptySession.ts';
import { normalizeNewlines } from '../../common/terminal/ansiStrip.ts';
import type { CommandLog, LoggedCommand } from './commandLog.ts';
import { EchoGate } from './echoGate.ts';
import type { AgentState, AgentStatus } from '../../common/api/agentContract.ts';
import type { DevServer } from '../../common/api/devServerContract.ts';
import { ControlError } from './protocol.ts';
import type { SentInput, SentInputTracker } from './sentInput.ts';
import { readScreenOrNull } from './terminalInput.ts';
import { readOutputBytes } from './terminalOutput.ts';

export interface WaitConditions {
  pattern?: RegExp | undefined;
  exit?: boolean | undefined;
  idleMs?: number | undefined;
  prompt?: boolean | undefined;
  /** The pane's agent is (or enters) one of these states (src/node/agents). */
  agentState?: readonly AgentState[] | undefined;
  /** A process of the pane listens on this port (src/node/servers). */
  port?: number | undefined;
  since?: number | undefined;
  timeoutMs: number;
}

export type WaitResult =
  | { matched: 'pattern'; text: string; groups: Array<string | null>; offset: number }
  | { matched: 'exit'; exitCode: number | null; signal: string | null; offset: number }
  | { matched: 'idle'; offset: number }
  | { matched: 'prompt'; offset: number; exitCode?: number | null; commandLine?: string }
  | { matched: 'agentState'; offset: number; agent: { kind: string; label: string; state: AgentState; since: number; reason: string | null } }
  | { matched: 'port'; offset: number; server: DevServer };

/** How a prompt looks when no shell integration tells us: the text before the cursor ends in one of these. */
const promptPattern = /[$#%>❯›»]\s?$/;

export class TerminalWaiter implements IDisposable {
  readonly #commandLog: CommandLog;
  readonly #sentInput: SentInputTracker;
  readonly #logger: ILogger;
  readonly #active = new Set<(error: Error) => void>();

  constructor(options: { commandLog: CommandLog; sentInput: SentInputTracker; logger: ILogger }) {
    this.#commandLog = options.commandLog;
    this.#sentInput = options.sentInput;
    this.#logger = options.logger;
  }

  wait(session: PtySession, conditions: WaitConditions): Promise<WaitResult> {
    return new Promise<WaitResult>((resolve, reject) => {
      const disposables: IDisposable[] = [];
      let timeoutTimer: NodeJS.Timeout | undefined;
      let idleTimer: NodeJS.Timeout | undefined;
      let screenCheck: NodeJS.Timeout | undefined;
      let echoTimer: NodeJS.Timeout | undefined;
      let settled = false;
      const finish = (outcome: { result: WaitResult } | { error: Error }) => {
        if (settled) return;
        settled = true;
        this.#active.delete(abort);
        for (const disposable of disposables) disposable.dispose();
        clearTimeout(timeoutTimer);
        clearTimeout(idleTimer);
        clearTimeout(screenCheck);
        clearTimeout(echoTimer);
        if ('result' in outcome) resolve(outcome.result);
        else reject(outcome.error);
      };
      const abort = (error: Error) => finish({ error });
      this.#active.add(abort);
      const succeed = (result: WaitResult) => finish({ result });

      timeoutTimer = setTimeout(() => finish({ error: new ControlError(`wait timeout after ${conditions.timeoutMs}ms`, 'TIMEOUT') }), conditions.timeoutMs);

      const now = session.offset;
      const since = conditions.since === undefined ? now : Math.min(Math.max(0, conditions.since), now);

      // --- exit ----------------------------------------------------------------------------
      const exitStatus = session.exitStatus;
      if (exitStatus) {
        if (conditions.exit) return succeed({ matched: 'exit', exitCode: exitStatus.exitCode, signal: exitStatus.signal, offset: session.offset });
        return finish({ error: new ControlError(`terminal ${session.id} has exited`, 'TERMINAL_EXITED') });
      }
      disposables.push(
        session.onDidExit((status) => {
          if (conditions.exit) succeed({ matched: 'exit', exitCode: status.exitCode, signal: status.signal, offset: session.offset });
          else finish({ error: new ControlError(`terminal ${session.id} exited before the wait condition was met`, 'TERMINAL_EXITED') });
        }),
      );

      // --- agent state ---------------------------------------------------------------------
      const agentStates = conditions.agentState;
      if (agentStates) {
        const agentMatch = (agent: AgentStatus | null | undefined): WaitResult | null =>
          agent && agentStates.includes(agent.state)
            ? { matched: 'agentState', offset: session.offset, agent: { kind: agent.kind, label: agent.label, state: agent.state, since: agent.since, reason: agent.reason } }
            : null;
        const already = agentMatch(session.info.agent);
        if (already) return succeed(already);
        disposables.push(
          session.onDidChangeAgent(({ agent }) => {
            const result = agentMatch(agent);
            if (result) succeed(result);
          }),
        );
      }

      // --- port ----------------------------------------------------------------------------
      const port = conditions.port;
      if (port !== undefined) {
        const portMatch = (servers: readonly DevServer[] | undefined): WaitResult | null => {
          const server = servers?.find((candidate) => candidate.port === port);
          return server ? { matched: 'port', offset: session.offset, server: { ...server } } : null;
        };
        const already = portMatch(session.info.servers);
        if (already) return succeed(already);
        disposables.push(
          session.onDidChangeServers(({ servers }) => {
            const result = portMatch(servers);
            if (result) succeed(result);
          }),
        );
      }

      // --- pattern -------------------------------------------------------------------------
      const matcher = conditions.pattern ? new StreamMatcher(conditions.pattern) : undefined;
      const gate = matcher ? new EchoGate() : undefined;
      /** Feed text that counts to the matcher; true when the wait is over. */
      const matchText = (plain: string, offset: number): boolean => {
        const match = plain.length > 0 ? matcher!.push(plain) : null;
        if (match) succeed({ matched: 'pattern', ...match, offset });
        return match !== null;
      };
      /** While an echo is looked for, a timer ends the search at its deadline (the output held then counts). */
      const armEchoTimer = () => {
        clearTimeout(echoTimer);
        const deadline = gate?.deadline ?? null;
        if (deadline === null) return;
        // +1: a timer may fire a millisecond before Date.now() reaches the deadline.
        echoTimer = setTimeout(() => {
          if (!matchText(gate!.expire(), session.offset)) armEchoTimer();
        }, Math.max(0, deadline - Date.now()) + 1);
      };
      if (gate) {
        if (matchText(this.#catchUp(session, gate, since, now), now)) return;
        disposables.push(
          this.#sentInput.onDidRecord((sent) => {
            if (sent.session !== session) return;
            gate.expect(sent.input);
            armEchoTimer();
          }),
        );
        armEchoTimer();
      }

      // --- prompt --------------------------------------------------------------------------
      const promptWithMarks = conditions.prompt === true && session.info.shellIntegration;
      if (promptWithMarks) {
        const info = session.info;
        if (conditions.since === undefined && info.runningCommand === null) return succeed({ matched: 'prompt', offset: now });
        const finished = this.#commandLog.finishedSince(session.id, since);
        if (finished) return succeed(promptResult(finished, now));
        disposables.push(
          this.#commandLog.onDidAppend((entry) => {
            if (entry.terminalId === session.id && entry.endOffset >= since) succeed(promptResult(entry, session.offset));
          }),
        );
      }
      const promptByScreen = conditions.prompt === true && !promptWithMarks;
      const checkScreenSoon = () => {
        clearTimeout(screenCheck);
        screenCheck = setTimeout(
          () => void this.#checkPromptOnScreen(session).then((atPrompt) => atPrompt && succeed({ matched: 'prompt', offset: session.offset })),
          ControlConstants.promptQuietMs,
        );
      };
      if (promptByScreen && (conditions.since === undefined || since < now)) checkScreenSoon();

      // --- idle ----------------------------------------------------------------------------
      const armIdle = () => {
        if (conditions.idleMs === undefined) return;
        clearTimeout(idleTimer);
        idleTimer = setTimeout(() => succeed({ matched: 'idle', offset: session.offset }), conditions.idleMs);
      };
      armIdle();

      disposables.push(
        session.onDidOutput(({ data, endOffset }) => {
          if (gate) {
            if (matchText(gate.push(data), endOffset)) return;
            armEchoTimer();
          }
          armIdle();
          if (promptByScreen) checkScreenSoon();
        }),
      );
    });
  }

  dispose(): void {
    const error = new ControlError('the control server is shutting down', 'CONNECTION_CLOSED');
    for (const abort of [...this.#active]) abort(error);
    this.#active.clear();
  }

  /**
   * Output that came before the wait and counts for its pattern: from `start` (its `since`) to
   * `now`, through the echo gate. Sends at or after `start` are expected at their offsets; so is
   * the last one before it, whose echo may straddle `start` (or be drawn again later, typed ahead),
   * which is why reading begins at that send.
   */
  #catchUp(session: PtySession, gate: EchoGate, start: number, now: number): string {
    const expected: SentInput[] = [];
    let before: SentInput | undefined;
    for (const input of this.#sentInput.recent(session)) {
      if (input.offset >= start) expected.push(input);
      else before = input;
    }
    if (before && start - before.offset <= ControlConstants.echoLookbackBytes) expected.unshift(before);
    const origin = Math.min(start, expected[0]?.offset ?? start);
    const read = origin < now ? readOutputBytes(session, origin, now, ControlConstants.waitPatternWindowChars) : { data: Buffer.alloc(0), startOffset: now };
    // Where reading pauses: at each send (to expect its echo from there) and at `start`.
    const stops: Array<{ at: number; input: SentInput | null }> = [...expected.map((input) => ({ at: input.offset, input })), { at: start, input: null }];
    stops.sort((a, b) => a.at - b.at);
    // `since` may split a character; the decoder carries its bytes over to the next piece.
    const decoder = new StringDecoder('utf8');
    let counted = '';
    let cursor = read.startOffset;
    for (const stop of stops) {
      // A stop before what the ring still holds (or what was kept of a long stretch) applies at its start.
      const at = Math.max(stop.at, read.startOffset);
      if (at > cursor) {
        const text = gate.push(decoder.write(read.data.subarray(cursor - read.startOffset, at - read.startOffset)));
        // Before `start` nothing counts; the gate drops what it still holds of that once told so.
        if (cursor >= start) counted += text;
      }
      cursor = Math.max(cursor, at);
      if (stop.input) gate.expect(stop.input);
      else gate.discardBefore();
    }
    counted += gate.push(decoder.write(read.data.subarray(cursor - read.startOffset)));
    return counted + gate.expire();
  }

  async #checkPromptOnScreen(session: PtySession): Promise<boolean> {
    const screen = await readScreenOrNull(session, this.#logger);
    if (!screen || screen.altScreen) return false;
    const line = screen.lines[screen.cursorY] ?? '';
    return promptPattern.test(line.substring(0, screen.cursorX));
  }
}

function promptResult(entry: LoggedCommand, offset: number): WaitResult {
  return { matched: 'prompt', offset, exitCode: entry.exitCode, commandLine: entry.commandLine };
}

/** Matches a regex against plain text (escape sequences already stripped), keeping a bounded window of the newest text. */
class StreamMatcher {
  readonly #pattern: RegExp;
  #window = '';
  /** CRs at the end of the last piece, held back until we know whether an LF follows. */
  #pendingCr = '';

  constructor(pattern: RegExp) {
    // Stateful flags would make exec() resume from lastIndex; we always search the whole window.
    this.#pattern = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
  }

  push(plain: string): { text: string; groups: Array<string | null> } | null {
    let piece = this.#pendingCr + plain;
    const trailing = /\r+$/.exec(piece);
    this.#pendingCr = trailing ? trailing[0] : '';
    if (trailing) piece = piece.substring(0, piece.length - trailing[0].length);
    this.#window += normalizeNewlines(piece);
    if (this.#window.length > ControlConstants.waitPatternWindowChars) this.#window = this.#window.substring(this.#window.length - ControlConstants.waitPatternWindowChars);
    const match = this.#pattern.exec(this.#window);
    if (!match) return null;
    // The next search must not find the same text again.
    this.#window = this.#window.substring(match.index + Math.max(1, match[0].length));
    return { text: match[0], groups: match.slice(1).map((group) => group ?? null) };
  }
}
