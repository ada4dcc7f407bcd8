/**
 * The agent state of every terminal: which agent runs in its foreground and what it is doing.
 * Sources, best first: a pending IDE review (Claude Code's openDiff) from that pane, the screen
 * (the agent's rules read on the Hub's headless mirror; it also carries a prompt's options, which
 * answering needs), the agent's own hooks where Switchboard started it (claudeHooks.ts: they keep
 * the state right when the screen is not recognisable), a notification (OSC 9/777, BEL) since the
 * person last typed, and — for agents without screen rules — whether output still flows.
 *
 * Evaluated when a terminal's output, input, commands or reviews change, throttled per terminal
 * so a busy pane costs one /proc read per interval and a screen read only while an agent runs.
 */
import type { AgentAnswerParams, AgentDefinitionSetting, AgentStatus } from '../../common/api/agentContract.ts';
import { ApiError } from '../../common/api/errors.ts';
import { Emitter, type Event } from '../../common/event.ts';
import { DisposableStore, type IDisposable, toDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import type { PtySession } from '../pty/ptySession.ts';
import type { ScreenText } from '../pty/terminalMirror.ts';
import { type AgentProcess, findAgentInGroup, foregroundGroup } from './agentProcess.ts';
import { type AgentDefinition, agentTable } from './agentTable.ts';
import { readAgentScreen, type ScreenReading } from './screenRules.ts';
import type { AgentHookState } from './claudeHooks.ts';

export const AgentMonitorConstants = {
  /** Least time between two evaluations of a pane running an agent: the state follows well within 1 s. */
  agentIntervalMs: 120,
  /** Of a pane without one: only the foreground process is looked at; an agent starting is seen within this. */
  plainIntervalMs: 400,
  /**
   * A foreground group found to run no agent is looked at again after this long (a build printing
   * fast costs one /proc read per evaluation, not a process-tree scan); a new command looks at once.
   */
  missRecheckMs: 1000,
  /** Output this soon after input is its echo, not the agent working. */
  echoMs: 100,
  /** An agent without screen rules is idle once its output has stopped this long. */
  quietMs: 1500,
  /**
   * A dialog younger than this is not typed into yet: Claude Code drops a key that comes right
   * after it drew the dialog (measured with the real CLI: a digit within ~100 ms was lost).
   */
  answerSettleMs: 400,
  /**
   * The screen is read once the pane's output has paused this long: a frame the agent wrote at once
   * can reach the Hub in two reads (the PTY hands over what it holds), and half a dialog reads as
   * another prompt, or none.
   */
  frameSettleMs: 25,
  /** …but not later than this after the evaluation began, so a pane that never pauses is still read. */
  frameSettleMaxMs: 100,
  /** How long after an agent leaves the foreground the shell's exit status may still come (for `exit N`). */
  exitCodeGraceMs: 5000,
} as const;

export interface AgentMonitorOptions {
  ptyHost: PtyHost;
  logger: ILogger;
  /** The user's `extraAgents` setting (read at each detection, so a change applies at once). */
  extraAgents: () => readonly AgentDefinitionSetting[];
  /** A pending IDE review (openDiff) from this terminal's Claude Code, if any. */
  pendingReview: (terminalId: string) => { title: string } | null;
  /** Types an answer into a terminal through the person's input path. */
  write: (terminalId: string, data: string) => void;
}

export interface AgentChange {
  terminalId: string;
  agent: AgentStatus | null;
  previous: AgentStatus | null;
}

export class AgentMonitor implements IDisposable {
  readonly #options: AgentMonitorOptions;
  readonly #store = new DisposableStore();
  readonly #watches = new Map<string, AgentWatch>();
  #table: { key: string; agents: AgentDefinition[] } | null = null;

  constructor(options: AgentMonitorOptions) {
    this.#options = options;
  }

  start(): void {
    const { ptyHost } = this.#options;
    this.#store.add(ptyHost.onDidAddTerminal(({ id }) => this.#watch(id)));
    this.#store.add(
      ptyHost.onDidRemoveTerminal(({ id }) => {
        this.#watches.get(id)?.dispose();
        this.#watches.delete(id);
      }),
    );
    for (const info of ptyHost.list()) this.#watch(info.id);
  }

  /** A review was added or removed for this terminal: look again now. */
  reviewsChanged(terminalId: string | null): void {
    if (terminalId) this.#watches.get(terminalId)?.schedule(0);
  }

  /** A hook of the agent in this terminal reported (see claudeHooks.ts): look again now. */
  noteHook(terminalId: string, hook: AgentHookState): void {
    this.#watches.get(terminalId)?.noteHook(hook);
  }

  /** Answer the prompt on screen; refused (nothing typed) unless it is still the one `expectSince` names. */
  async answer(params: AgentAnswerParams): Promise<void> {
    const watch = this.#watches.get(params.terminalId);
    if (!watch) throw new ApiError('NOT_FOUND', `no terminal with id ${params.terminalId}`);
    await watch.answer(params);
  }

  status(terminalId: string): AgentStatus | null {
    return this.#watches.get(terminalId)?.status ?? null;
  }

  dispose(): void {
    this.#store.dispose();
    for (const watch of this.#watches.values()) watch.dispose();
    this.#watches.clear();
  }

  #agents(): AgentDefinition[] {
    const extra = this.#options.extraAgents();
    const key = JSON.stringify(extra);
    if (this.#table?.key !== key) this.#table = { key, agents: agentTable(extra) };
    return this.#table.agents;
  }

  #watch(id: string): void {
    const session = this.#options.ptyHost.get(id);
    if (!session || this.#watches.has(id)) return;
    const watch = new AgentWatch(session, {
      agents: () => this.#agents(),
      pendingReview: () => this.#options.pendingReview(id),
      write: (data) => this.#options.write(id, data),
      logger: this.#options.logger,
    });
    this.#watches.set(id, watch);
    watch.schedule(0);
  }
}

interface WatchDeps {
  agents(): AgentDefinition[];
  pendingReview(): { title: string } | null;
  write(data: string): void;
  logger: ILogger;
}

/** One terminal's agent state. */
class AgentWatch implements IDisposable {
  readonly #session: PtySession;
  readonly #deps: WatchDeps;
  readonly #listeners: IDisposable[] = [];
  #timer: NodeJS.Timeout | undefined;
  #quietTimer: NodeJS.Timeout | undefined;
  #running = false;
  #again = false;
  /** With #again: not before this (ms from now), the end of a miss's window. */
  #againDelayMs: number | undefined;
  #lastRunAt = 0;
  #found: AgentProcess | null = null;
  /** The last foreground group found without an agent, and when. */
  #miss: { group: number; at: number } | null = null;
  #lastOutputAt = 0;
  /** Any output, its echo included (#lastOutputAt leaves that out). */
  #lastAnyOutputAt = 0;
  #notification: { body: string; at: number } | null = null;
  #lastInputAt = 0;
  /** The `since` of the prompt already answered: a second answer to it is refused. */
  #answeredSince: number | null = null;
  #exitedAt = 0;
  /** When the agent now (or last) in the foreground was first seen. */
  #agentSeenAt = 0;
  /** Its rules have read its screen since it was seen. */
  #screenRead = false;
  /** The shell's last command exit status (shell integration), which may come before the agent is seen gone. */
  #lastCommand: { exitCode: number | null; endedAt: number } | null = null;
  /** The latest state the agent's own hooks reported (agents Switchboard started with hooks). */
  #hook: AgentHookState | null = null;
  #disposed = false;

  constructor(session: PtySession, deps: WatchDeps) {
    this.#session = session;
    this.#deps = deps;
    this.#listeners.push(
      session.onDidOutput(() => {
        const now = Date.now();
        this.#lastAnyOutputAt = now;
        if (now - this.#lastInputAt > AgentMonitorConstants.echoMs) this.#lastOutputAt = now;
        this.schedule();
      }),
      session.onDidWrite(() => {
        this.#lastInputAt = Date.now();
        this.#notification = null;
        this.schedule();
      }),
      session.onDidNotify(({ body }) => {
        this.#notification = { body, at: Date.now() };
        this.schedule(0);
      }),
      session.onDidStartCommand(() => {
        this.#miss = null;
        this.schedule(0);
      }),
      session.onDidCommand((event) => {
        this.#lastCommand = { exitCode: event.exitCode, endedAt: event.endedAt };
        this.#noteExitCode(event.exitCode, event.endedAt);
      }),
      session.onDidExit(() => this.schedule(0)),
      toDisposable(() => {
        clearTimeout(this.#timer);
        clearTimeout(this.#quietTimer);
      }),
    );
  }

  get status(): AgentStatus | null {
    return this.#session.info.agent ?? null;
  }

  /** Evaluate after the throttle interval (or `delayMs`, whichever is later). */
  schedule(delayMs?: number): void {
    if (this.#disposed) return;
    if (this.#running) {
      this.#again = true;
      if (delayMs === 0) this.#againDelayMs = undefined; // asked for at once (a new command, a notification): not held to a miss's window
      return;
    }
    if (this.#timer) return;
    const interval = this.#found ? AgentMonitorConstants.agentIntervalMs : AgentMonitorConstants.plainIntervalMs;
    const wait = Math.max(delayMs ?? 0, this.#lastRunAt + interval - Date.now(), 0);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#run();
    }, wait);
  }

  noteHook(hook: AgentHookState): void {
    this.#hook = hook;
    this.schedule(0);
  }

  async answer(params: AgentAnswerParams): Promise<void> {
    const id = this.#session.id;
    const current = this.status;
    const gone = `the prompt in terminal ${id} is gone (nothing was typed)`;
    if (!current || current.state !== 'needs-input' || !current.prompt) throw new ApiError('INVALID_PARAMS', gone);
    if (this.#answeredSince === current.since && current.since === params.expectSince) {
      throw new ApiError('INVALID_PARAMS', `the prompt in terminal ${id} was answered already (nothing was typed)`);
    }
    if (current.since !== params.expectSince) {
      throw new ApiError('INVALID_PARAMS', `the prompt in terminal ${id} was answered or replaced since you saw it (nothing was typed)`);
    }
    const rules = this.#found?.agent.screen;
    if (!rules) throw new ApiError('INVALID_PARAMS', `the agent in terminal ${id} cannot be answered from here; answer in the pane`);
    const young = current.since + AgentMonitorConstants.answerSettleMs - Date.now();
    if (young > 0) await new Promise((resolve) => setTimeout(resolve, young));
    if (this.#disposed) throw new ApiError('NOT_FOUND', `terminal ${id} was closed`);
    // The stored state may be up to one interval old: read the screen again, and type only if the same prompt is on it.
    const reading = readAgentScreen(rules, (await this.#readSettledScreen()).lines);
    const still = this.status;
    // The same prompt redrawn at another width since the last evaluation (its text cut or wrapped
    // differently) is still the one asked about: the keys come from this reading.
    if (!reading || reading.state !== 'needs-input' || !reading.prompt || !still || still.since !== current.since || reading.reason !== current.reason || !samePromptShape(reading.prompt, current.prompt)) {
      this.schedule(0);
      throw new ApiError('INVALID_PARAMS', gone);
    }
    if (this.#answeredSince === current.since) throw new ApiError('INVALID_PARAMS', `the prompt in terminal ${id} was answered already (nothing was typed)`);
    const keys = answerKeys(reading, params.answer, id);
    this.#answeredSince = current.since;
    this.#deps.write(keys);
    this.schedule(0);
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const listener of this.#listeners) listener.dispose();
    this.#listeners.length = 0;
  }

  async #run(): Promise<void> {
    if (this.#disposed) return;
    this.#running = true;
    this.#lastRunAt = Date.now();
    try {
      await this.#evaluate();
    } catch (error) {
      // The terminal may close mid-read; anything else is logged and the next change tries again.
      if (!this.#disposed) this.#deps.logger.warn('agent state evaluation failed', { id: this.#session.id, error: String(error) });
    } finally {
      this.#running = false;
    }
    if (this.#again) {
      const delay = this.#againDelayMs;
      this.#again = false;
      this.#againDelayMs = undefined;
      this.schedule(delay);
    }
  }

  async #evaluate(): Promise<void> {
    const session = this.#session;
    const exit = session.exitStatus;
    if (exit) {
      this.#found = null;
      this.#leave(exit.exitCode);
      return;
    }
    const pid = session.info.pid;
    if (pid === null) return;
    const group = await foregroundGroup(pid);
    const miss = this.#miss;
    const recentMiss = miss !== null && miss.group === group && Date.now() - miss.at < AgentMonitorConstants.missRecheckMs;
    if (this.#found?.group !== group && !recentMiss) {
      this.#found = await findAgentInGroup(group, this.#deps.agents());
      this.#miss = this.#found ? null : { group, at: Date.now() };
    } else if (recentMiss) {
      this.#found = null;
      // Something changed (this evaluation was asked for) while the group was taken for no agent:
      // look once more when the miss is old enough. A miss can be a moment's: a shell that has
      // forked the agent but not yet exec'd it; an agent that then draws its screen once and waits
      // would otherwise never be looked at again.
      if (!this.#again) {
        this.#again = true;
        this.#againDelayMs = miss.at + AgentMonitorConstants.missRecheckMs - Date.now();
      }
    }
    if (this.#disposed) return;
    const found = this.#found;
    if (!found) {
      this.#leave(null);
      return;
    }
    const current = this.status;
    const fresh = !current || current.state === 'exited' || current.kind !== found.agent.kind;
    if (fresh) {
      this.#agentSeenAt = Date.now();
      this.#screenRead = false;
    }
    const next = await this.#read(found, fresh ? null : current);
    if (this.#disposed || session.exitStatus) return;
    this.#set({ kind: found.agent.kind, label: found.agent.label, ...next, exitCode: null }, fresh);
  }

  async #read(found: AgentProcess, current: AgentStatus | null): Promise<Pick<AgentStatus, 'state' | 'reason' | 'prompt'>> {
    const review = this.#deps.pendingReview();
    const rules = found.agent.screen;
    const reading = rules ? readAgentScreen(rules, (await this.#readSettledScreen()).lines) : null;
    if (review) {
      // Decided in Review (no prompt to type into): its dialog, where the screen shows it, says
      // what it is (`Write hello.txt`) better than the diff tab's title.
      const dialog = reading?.state === 'needs-input' && reading.prompt?.kind === 'permission' && reading.prompt.toolName !== null;
      return { state: 'needs-input', reason: dialog ? reading.reason : `Review ${reviewName(review.title)}`, prompt: null };
    }
    if (reading) {
      this.#screenRead = true;
      return { state: reading.state, reason: reading.reason, prompt: reading.prompt };
    }
    const hook = this.#hook;
    if (hook && hook.at >= this.#agentSeenAt) return { state: hook.state, reason: hook.reason, prompt: null };
    const notification = this.#notification;
    if (notification && notification.at >= this.#lastInputAt) return { state: 'needs-input', reason: notification.body || 'The agent asks for attention', prompt: null };
    // An agent with rules between two recognisable frames keeps its state (before its first one, its output decides).
    if (rules && current && this.#screenRead) return { state: current.state, reason: current.reason, prompt: current.prompt };
    // Output flowing, or an agent just started that has not drawn anything its rules know (it is
    // loading, not waiting for the person: idle now would list it under "Waiting for you").
    const quietFor = Date.now() - Math.max(this.#lastOutputAt, this.#agentSeenAt);
    if (quietFor < AgentMonitorConstants.quietMs) {
      clearTimeout(this.#quietTimer);
      this.#quietTimer = setTimeout(() => this.schedule(0), AgentMonitorConstants.quietMs - quietFor + 10);
      return { state: 'working', reason: null, prompt: null };
    }
    return { state: 'idle', reason: null, prompt: null };
  }

  /** The mirror's screen once the output has paused (AgentMonitorConstants.frameSettleMs), or the wait's bound has passed. */
  async #readSettledScreen(): Promise<ScreenText> {
    const until = Date.now() + AgentMonitorConstants.frameSettleMaxMs;
    for (;;) {
      const now = Date.now();
      const wait = Math.min(this.#lastAnyOutputAt + AgentMonitorConstants.frameSettleMs, until) - now;
      if (wait <= 0 || this.#disposed) break;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    return this.#session.readScreen();
  }

  /** The agent left the foreground (or the terminal ended): `exited`, with the exit code when known. */
  #leave(exitCode: number | null): void {
    const current = this.status;
    if (!current || current.state === 'exited') return;
    // The shell may have reported the agent's command ending before this evaluation saw it gone.
    const last = this.#lastCommand;
    if (exitCode === null && last && last.endedAt >= this.#agentSeenAt) exitCode = last.exitCode;
    this.#exitedAt = Date.now();
    this.#set({ ...current, state: 'exited', reason: exitCode === null ? null : `exit ${exitCode}`, prompt: null, exitCode }, true);
  }

  /** The shell reported the agent's command's exit status after the agent left the foreground. */
  #noteExitCode(exitCode: number | null, endedAt: number): void {
    const current = this.status;
    if (current?.state === 'exited' && current.exitCode === null && exitCode !== null && endedAt - this.#exitedAt < AgentMonitorConstants.exitCodeGraceMs) {
      this.#session.setAgent({ ...current, exitCode, reason: `exit ${exitCode}` });
      return;
    }
    this.schedule(0);
  }

  #set(next: Omit<AgentStatus, 'since'>, forceNewSince: boolean): void {
    const current = this.status;
    const same = current && !forceNewSince && current.kind === next.kind && current.state === next.state && current.reason === next.reason && JSON.stringify(current.prompt) === JSON.stringify(next.prompt);
    if (same) return;
    // The same prompt redrawn (a resize re-wraps or cuts its options' text) or read again once all of
    // it had come (its last options were still on their way) is the same prompt: it keeps its
    // `since`, so an answer to it — from this window, another, or a phone — still holds.
    const redrawn = current !== null && !forceNewSince && current.kind === next.kind && current.state === 'needs-input' && next.state === 'needs-input' && current.reason === next.reason && samePromptShape(current.prompt, next.prompt);
    this.#session.setAgent({ ...next, since: redrawn ? current.since : Date.now() });
  }
}

/** A review's title as a file's name: Claude Code names its diff tab `✻ [Claude Code] hello.txt (5d616c) ⧉`. */
function reviewName(title: string): string {
  return /^✻ \[Claude Code\] (?<name>.+?)(?: \([0-9a-f]+\))? ⧉$/u.exec(title)?.groups?.name ?? title;
}

/**
 * One prompt (its reason compared apart) read twice: the same kind and tool. Its options' text may
 * be cut or wrapped at another width, and their number may differ when one reading came before
 * the prompt's last lines had.
 */
function samePromptShape(a: AgentStatus['prompt'], b: AgentStatus['prompt']): boolean {
  if (a === null || b === null) return a === b;
  return a.kind === b.kind && a.toolName === b.toolName;
}

/**
 * The keys an agent's dialog takes: an option's digit picks it at once (Claude Code's permission
 * dialogs; Codex's, Gemini CLI's and Copilot CLI's numbered ones), the selector is moved to it
 * (Claude Code's and Copilot CLI's questions, which number no options), or it is clicked
 * (OpenCode's options in a row, whose selector the screen's text does not show).
 */
function answerKeys(reading: ScreenReading, answer: AgentAnswerParams['answer'], terminalId: string): string {
  const prompt = reading.prompt!;
  if (reading.answerBy === 'click') {
    const number = typeof answer === 'object' ? answer.option : answer === 'approve' ? reading.answers?.approve : reading.answers?.deny;
    const at = number ? reading.clicks?.[number - 1] : undefined;
    if (at) return clickKeys(at);
    if (answer === 'deny') return '\x1b';
    throw new ApiError('INVALID_PARAMS', `the prompt in terminal ${terminalId} has no such option; answer in the pane`);
  }
  if (typeof answer === 'object') {
    if (answer.option > prompt.options.length) throw new ApiError('INVALID_PARAMS', `the prompt in terminal ${terminalId} has ${prompt.options.length} options, not ${answer.option}`);
    if (reading.answerBy === 'selector') return questionKeys(reading, answer.option);
    if (answer.option > 9) throw new ApiError('INVALID_PARAMS', `option ${answer.option} cannot be typed as one key; answer in the pane`);
    return String(answer.option);
  }
  if (prompt.kind !== 'permission' || !reading.answers) throw new ApiError('INVALID_PARAMS', `the prompt in terminal ${terminalId} is a question: answer it with an option number`);
  const number = answer === 'approve' ? reading.answers.approve : reading.answers.deny;
  if (number !== null && number <= 9) return String(number);
  // Every permission dialog of Claude Code, Codex and Gemini CLI cancels (denies) on Escape.
  if (answer === 'deny') return '\x1b';
  throw new ApiError('INVALID_PARAMS', `the prompt in terminal ${terminalId} has no plain "Yes" option; pick an option number`);
}

/** A left-button click (press and release, SGR mouse encoding) at a 1-based screen cell. */
function clickKeys(at: { row: number; column: number }): string {
  return `\x1b[<0;${at.column};${at.row}M\x1b[<0;${at.column};${at.row}m`;
}

/** A selector list: move from the highlighted option to the wanted one, then Enter. */
function questionKeys(reading: ScreenReading, option: number): string {
  const from = reading.selected ?? 1;
  const steps = option - from;
  return (steps >= 0 ? '\x1b[B'.repeat(steps) : '\x1b[A'.repeat(-steps)) + '\r';
}
