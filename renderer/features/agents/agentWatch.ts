/**
 * The window's side of agent state (issue 19): the "Waiting for you" list (agents that ask and
 * pending reviews, then agents done with their turn), the count in the window title, one desktop notification per
 * wait while the window is not focused (unless Do not disturb), the clock the sidebar's "4 min"
 * reads, and answering a prompt with `agent.answer`. The Hub decides every state; this only
 * shows it. Owned by the Workbench.
 */
import type { Settings, TerminalInfo } from '../../../src/common/api/contract.ts';
import type { AgentAnswerParams } from '../../../src/common/api/agentContract.ts';
import type { IHubClient } from '../../../src/common/api/hubClient.ts';
import type { ReviewSummary } from '../../../src/common/api/reviewContract.ts';
import { Disposable, toDisposable } from '../../../src/common/lifecycle.ts';
import { errorCode, errorMessage } from '../../app/errorList.ts';
import { ObservableValue } from '../../app/observable.ts';
import { windowTitle } from '../review/reviewFormat.ts';
import { isWaiting, waitingEntries, waitingNotification, type WaitingEntry } from './agentFormat.ts';

export interface AgentWatchOptions {
  client: IHubClient;
  terminals: ObservableValue<ReadonlyMap<string, TerminalInfo>>;
  pendingReviews: ObservableValue<readonly ReviewSummary[]>;
  settings: ObservableValue<Settings>;
  /** False while the first terminal list loads: agents already waiting then are not news. */
  ready: ObservableValue<boolean>;
  /** Whether this window owns the title (the remote view writes its own). */
  ownsTitle: boolean;
  revealTerminal(terminalId: string): void;
  showReview(reviewId: string): void;
  /** A refused answer is also said in a toast: its row and banner may be gone by the time the Hub answers. */
  reportError(title: string, error: unknown): void;
}

/** An answer sent from this window: in flight, or refused with the Hub's words. */
export interface AnswerState {
  /** The `since` of the prompt answered: a newer prompt is not this answer's business. */
  since: number;
  sending: boolean;
  refusal: string | null;
}

export type AgentAnswer = AgentAnswerParams['answer'];

/** Tags notifications per terminal, so a new wait replaces the old one rather than stacking. */
const notificationTagPrefix = 'switchboard-agent-';

export class AgentWatch extends Disposable {
  /** Agents that wait and pending reviews: those holding an agent up first, each group oldest first. */
  readonly waiting = this.register(new ObservableValue<readonly WaitingEntry[]>([]));
  /** Now, as of the last tick: moves when some agent's "12 s" or "4 min" would read differently. */
  readonly now = this.register(new ObservableValue(Date.now()));
  /** Answers sent from this window, per terminal. */
  readonly answers = this.register(new ObservableValue<ReadonlyMap<string, AnswerState>>(new Map()));

  readonly #options: AgentWatchOptions;
  /** Waits already seen (`terminalId:since`), so each gets at most one notification. */
  readonly #seenWaits = new Set<string>();
  #tick: ReturnType<typeof setTimeout> | undefined;
  readonly #baseTitle: string;

  constructor(options: AgentWatchOptions) {
    super();
    this.#options = options;
    // A reconnect builds a new watch while the title still carries the old count.
    this.#baseTitle = document.title.replace(/^\(\d+\) /, '') || 'Switchboard';
    const update = () => this.#update();
    this.register(options.terminals.onDidChange(update));
    this.register(options.pendingReviews.onDidChange(update));
    this.register(
      toDisposable(() => {
        clearTimeout(this.#tick);
        if (options.ownsTitle) document.title = this.#baseTitle;
      }),
    );
    this.#update();
  }

  /** Shows the first of the list: the agent (or review) holding an agent up longest, else the one done longest. False when nothing waits. */
  jumpToOldest(): boolean {
    const first = this.waiting.value[0];
    if (!first) return false;
    this.jumpTo(first);
    return true;
  }

  jumpTo(entry: WaitingEntry): void {
    if (entry.kind === 'agent') this.#options.revealTerminal(entry.terminalId);
    else this.#options.showReview(entry.review.id);
  }

  /**
   * Answers the prompt the person sees: `expectSince` makes the Hub refuse it (pane untouched)
   * when that prompt has gone or another took its place; the refusal is kept, in words, for the
   * banner and the list.
   */
  async answer(terminalId: string, answer: AgentAnswer): Promise<void> {
    const agent = this.#options.terminals.value.get(terminalId)?.agent;
    if (!agent || agent.state !== 'needs-input') {
      this.#setAnswer(terminalId, { since: agent?.since ?? 0, sending: false, refusal: 'Not sent: the agent no longer asks.' });
      return;
    }
    const since = agent.since;
    if (this.answers.value.get(terminalId)?.sending) return;
    this.#setAnswer(terminalId, { since, sending: true, refusal: null });
    try {
      await this.#options.client.call('agent.answer', { terminalId, answer, expectSince: since });
      if (this.store.isDisposed) return;
      this.#setAnswer(terminalId, null);
    } catch (error) {
      if (this.store.isDisposed) return;
      this.#setAnswer(terminalId, { since, sending: false, refusal: refusalText(error) });
      const name = this.#options.terminals.value.get(terminalId)?.name ?? terminalId;
      this.#options.reportError(`Not sent to ${agent.label} in ${name}`, error);
    }
  }

  #setAnswer(terminalId: string, state: AnswerState | null): void {
    const next = new Map(this.answers.value);
    if (state) next.set(terminalId, state);
    else next.delete(terminalId);
    this.answers.set(next);
  }

  #update(): void {
    const terminals = this.#options.terminals.value;
    const entries = waitingEntries(terminals.values(), this.#options.pendingReviews.value);
    this.waiting.set(entries);
    if (this.#options.ownsTitle) document.title = windowTitle(this.#baseTitle, entries.length);
    this.#notifyNewWaits(terminals);
    this.#forgetStaleAnswers(terminals);
    this.now.set(Date.now());
    this.#scheduleTick();
  }

  #notifyNewWaits(terminals: ReadonlyMap<string, TerminalInfo>): void {
    const current = new Set<string>();
    for (const info of terminals.values()) {
      const agent = info.agent;
      if (!agent || !isWaiting(agent.state)) continue;
      const key = `${info.id}:${agent.since}`;
      current.add(key);
      if (this.#seenWaits.has(key)) continue;
      this.#seenWaits.add(key);
      if (this.#options.ready.value) this.#notify(info);
    }
    // Keep only waits that still are, so the set does not grow for the window's lifetime.
    for (const key of this.#seenWaits) if (!current.has(key)) this.#seenWaits.delete(key);
  }

  #notify(info: TerminalInfo): void {
    const agent = info.agent;
    // In view, the list and the title are enough; a desktop notification is for when the person is away.
    if (!agent || document.hasFocus() || typeof Notification === 'undefined' || this.#options.settings.value.agentDoNotDisturb) return;
    const show = () => {
      const { title, body } = waitingNotification(info.name, agent);
      const shown = new Notification(title, { body, tag: `${notificationTagPrefix}${info.id}` });
      shown.onclick = () => {
        window.focus();
        this.#options.revealTerminal(info.id);
        shown.close();
      };
    };
    if (Notification.permission === 'granted') show();
    else if (Notification.permission === 'default') {
      Notification.requestPermission().then(
        (permission) => permission === 'granted' && show(),
        (error: unknown) => console.warn('[switchboard] notification permission request failed:', error),
      );
    }
  }

  /** A refusal or a sent answer is about one prompt: once the agent's state moved on, it is old news. */
  #forgetStaleAnswers(terminals: ReadonlyMap<string, TerminalInfo>): void {
    let changed = false;
    const next = new Map(this.answers.value);
    for (const [terminalId, state] of next) {
      const agent = terminals.get(terminalId)?.agent;
      if (state.sending) continue;
      if (!agent || agent.since !== state.since) {
        next.delete(terminalId);
        changed = true;
      }
    }
    if (changed) this.answers.set(next);
  }

  /** Ticks when the shortest shown duration would change: each second under a minute, then on the minute. */
  #scheduleTick(): void {
    clearTimeout(this.#tick);
    this.#tick = undefined;
    const now = Date.now();
    let delay = Number.POSITIVE_INFINITY;
    for (const info of this.#options.terminals.value.values()) {
      if (!info.agent) continue;
      const age = Math.max(0, now - info.agent.since);
      delay = Math.min(delay, age < 60_000 ? 1000 - (age % 1000) : 60_000 - (age % 60_000));
    }
    if (!Number.isFinite(delay)) return;
    this.#tick = setTimeout(
      () => {
        this.now.set(Date.now());
        this.#scheduleTick();
      },
      Math.max(50, delay + 5),
    );
  }
}

/** The Hub's refusal in a person's words. */
function refusalText(error: unknown): string {
  const code = errorCode(error);
  const message = errorMessage(error);
  if (code === 'NOT_FOUND') return `Not sent: ${message || 'the terminal is gone'}.`;
  return `Not sent: ${message}`;
}
