/**
 * The window's side of Review that lives outside the Review view: the pending and decided reviews
 * (kept in sync with Hub events), the count in the sidebar badge and the window title, desktop
 * notifications, which Claude Code clients are connected to which panes, the file tabs, the
 * selections reported to the Hub, and "Send to Claude". Owned by the Workbench.
 *
 * Nothing here loads CodeMirror: the editors are created by the (lazily loaded) views and handed
 * back as `LiveReviewDiff` / `LiveFileEditor` objects.
 */
import type { AppState, TerminalInfo } from '../../../src/common/api/contract.ts';
import type { IHubClient } from '../../../src/common/api/hubClient.ts';
import type { IdeState, ReviewItem, ReviewRemovalReason, ReviewSummary, SelectionReport } from '../../../src/common/api/reviewContract.ts';
import { ReviewConstants } from '../../../src/common/constants.ts';
import { Disposable, toDisposable, type IDisposable } from '../../../src/common/lifecycle.ts';
import { errorCode } from '../../app/errorList.ts';
import { ObservableValue } from '../../app/observable.ts';
import { FileTabs } from '../editor/fileTabs.ts';
import { fitsInOneCall, formatMegabytes, jsonByteLength } from './messageBudget.ts';
import { ReviewUiConstants } from './reviewConstants.ts';
import { displayPath, fileName, sourceLabel } from './reviewFormat.ts';

/** Side by side (two editors, aligned) or unified (one editor, deleted lines shown above the new ones). */
export type DiffMode = 'split' | 'unified';

/** What the diff view of a pending review offers the service (and the keyboard shortcuts). */
export interface LiveReviewDiff extends IDisposable {
  /** The proposed side as shown now: the proposal with the reviewer's edits and rejected changes. */
  proposedText(): string | null;
  nextChange(): void;
  previousChange(): void;
}

/** What "Send to Claude" sends: text pasted into Claude Code's prompt, or a file reference (`at_mentioned`). */
export type SendPayload =
  | { kind: 'text'; text: string }
  | {
      kind: 'file';
      path: string;
      /** 0-based, inclusive. */
      lineStart?: number;
      lineEnd?: number;
    };

/** A pane where a Claude Code client is connected: where "Send to Claude" can go. */
export interface ClaudeTarget {
  terminalId: string;
  terminalName: string;
  clientName: string;
}

export interface ReviewServiceOptions {
  client: IHubClient;
  appState: AppState;
  terminals: ObservableValue<ReadonlyMap<string, TerminalInfo>>;
  reportError(title: string, error: unknown): void;
  /** Bring the Review view up (a notification was clicked, Claude Code opened a file). */
  showReview(): void;
  /** Show and focus a pane (after sending its Claude Code something, so the person can type the prompt). */
  revealTerminal(terminalId: string): void;
}

export class ReviewService extends Disposable {
  /** Waiting for a decision, oldest first. */
  readonly pending = this.register(new ObservableValue<readonly ReviewSummary[]>([]));
  /** Decided, newest first (a page at a time). */
  readonly decided = this.register(new ObservableValue<readonly ReviewSummary[]>([]));
  /** False while older decided reviews may be left to load. */
  readonly decidedComplete = this.register(new ObservableValue(false));
  readonly ide = this.register(new ObservableValue<IdeState | null>(null));
  /** The review the view shows (pending or decided). */
  readonly selectedId = this.register(new ObservableValue<string | null>(null));
  /** When a review was last picked (`select`, performance.now()): later than a worktree's changes were asked for, the review wins. */
  readonly lastSelectAt = this.register(new ObservableValue(0));
  /**
   * The pending reviews the Review view had listed when it was last open, and when it closed
   * (performance.now()): opened again with a review that came meanwhile, it shows that review,
   * not the worktree looked at last (ReviewView).
   */
  seenPending: ReadonlySet<string> = new Set();
  closedAt = 0;
  /** Reviews that left the queue without a decision while this window had them, and why (the view says so instead of vanishing). */
  readonly withdrawn = this.register(new ObservableValue<ReadonlyMap<string, { summary: ReviewSummary; reason: ReviewRemovalReason }>>(new Map()));
  /** Reviews being decided by this window right now. */
  readonly deciding = this.register(new ObservableValue<ReadonlySet<string>>(new Set()));
  /** "Send to Claude" with several connected panes: the payload waiting for the person to pick one. */
  readonly sendPicker = this.register(new ObservableValue<SendPayload | null>(null));
  /** How diffs are laid out, as the person chose last. */
  readonly diffMode = this.register(new ObservableValue<DiffMode>(readPreference(ReviewUiConstants.diffModeStorageKey, ['split', 'unified'], 'split')));
  /** How diffs are laid out on screen: unified while the diff area is too narrow for two sides, unless the person insists. */
  readonly shownDiffMode = this.register(new ObservableValue<DiffMode>(this.diffMode.value));
  /** The diff area is narrower than ReviewUiConstants.narrowDiffPx. */
  readonly narrowDiff = this.register(new ObservableValue(false));
  /** Side by side was clicked while narrow: show it anyway, until the area is wide again. */
  #splitInsisted = false;
  /** Whether long unchanged stretches are folded. */
  readonly collapseUnchanged = this.register(
    new ObservableValue<boolean>(readPreference(ReviewUiConstants.collapseStorageKey, ['on', 'off'], 'on') === 'on'),
  );
  readonly files: FileTabs;

  readonly #options: ReviewServiceOptions;
  readonly #items = new Map<string, Promise<ReviewItem>>();
  readonly #liveDiffs = new Map<string, LiveReviewDiff>();
  /** Comments typed for pending reviews, kept while the person looks at another one. */
  readonly #comments = new Map<string, string>();
  #latestSend: SendPayload | null = null;
  #selectionTimer: ReturnType<typeof setTimeout> | undefined;
  #pendingSelection: SelectionReport | null = null;

  constructor(options: ReviewServiceOptions) {
    super();
    this.#options = options;
    this.files = this.register(new FileTabs({ client: options.client, host: options.appState.host, reportError: options.reportError }));
    // The window title counts pending reviews with the agents that wait (AgentWatch).
    this.register(this.diffMode.onDidChange((mode) => writePreference(ReviewUiConstants.diffModeStorageKey, mode)));
    this.register(this.diffMode.onDidChange(() => this.#updateShownDiffMode()));
    this.register(this.narrowDiff.onDidChange(() => this.#updateShownDiffMode()));
    this.register(this.collapseUnchanged.onDidChange((on) => writePreference(ReviewUiConstants.collapseStorageKey, on ? 'on' : 'off')));
    this.register(
      toDisposable(() => {
        clearTimeout(this.#selectionTimer);
        for (const live of this.#liveDiffs.values()) live.dispose();
        this.#liveDiffs.clear();
      }),
    );
  }

  /** The person picked a layout in the toolbar. */
  chooseDiffMode(mode: DiffMode): void {
    // A click on the layout already shown changes nothing (while narrow, Unified must not become the lasting choice by it).
    if (mode === this.shownDiffMode.value) return;
    this.#splitInsisted = mode === 'split' && this.narrowDiff.value;
    this.diffMode.set(mode);
    this.#updateShownDiffMode();
  }

  /** The diff area's width, as it is laid out now. */
  reportDiffWidth(px: number): void {
    // 0: not laid out (a hidden view); keep what was known.
    if (px > 0) this.narrowDiff.set(px < ReviewUiConstants.narrowDiffPx);
  }

  #updateShownDiffMode(): void {
    if (!this.narrowDiff.value) this.#splitInsisted = false;
    const mode = this.diffMode.value;
    this.shownDiffMode.set(mode === 'split' && this.narrowDiff.value && !this.#splitInsisted ? 'unified' : mode);
  }

  async start(): Promise<void> {
    const { client } = this.#options;
    // Events that arrive while the lists load are applied after them, in order.
    let queue: (() => void)[] | undefined = [];
    const apply = (change: () => void) => (queue ? queue.push(change) : change());
    this.register(client.on('review.added', (summary) => apply(() => this.#added(summary))));
    this.register(client.on('review.decided', (summary) => apply(() => this.#decided(summary))));
    this.register(client.on('review.removed', ({ id, reason }) => apply(() => this.#removed(id, reason))));
    this.register(client.on('ide.changed', (state) => apply(() => this.ide.set(state))));
    this.register(client.on('editor.openFile', (request) => this.#openFileRequested(request)));
    this.register(client.on('editor.saved', (saved) => this.files.applySaved(saved)));
    try {
      const [lists, ide] = await Promise.all([
        client.call('review.list', { decidedLimit: ReviewUiConstants.decidedPageSize }),
        client.call('ide.getState', {}),
      ]);
      if (this.store.isDisposed) return;
      this.pending.set(lists.pending);
      this.decided.set(lists.decided);
      this.decidedComplete.set(lists.decided.length < ReviewUiConstants.decidedPageSize);
      this.ide.set(ide);
    } catch (error) {
      if (errorCode(error) !== 'CONNECTION_CLOSED') this.#options.reportError('Could not load the reviews', error);
    } finally {
      const queued = queue;
      queue = undefined;
      queued.forEach((change) => change());
    }
  }

  // ---- reviews --------------------------------------------------------------------------------

  find(id: string): ReviewSummary | undefined {
    return (
      this.pending.value.find((summary) => summary.id === id) ??
      this.decided.value.find((summary) => summary.id === id) ??
      this.withdrawn.value.get(id)?.summary
    );
  }

  /** A review with its contents (cached; a pending review's contents never change). */
  loadItem(id: string): Promise<ReviewItem> {
    let item = this.#items.get(id);
    if (!item) {
      item = this.#options.client.call('review.get', { id });
      item.catch(() => this.#items.delete(id));
      this.#items.set(id, item);
    }
    return item;
  }

  /**
   * The person picked a review (in the list, from a pane's badge, from Waiting for you): the view
   * shows it, also over a worktree's changes shown before (see `lastSelectAt`).
   */
  select(id: string | null): void {
    this.selectedId.set(id);
    this.lastSelectAt.set(performance.now());
  }

  /** The diff view of a pending review registers its editors, so Accept can read the shown text. */
  attachDiff(id: string, live: LiveReviewDiff): IDisposable {
    this.#liveDiffs.get(id)?.dispose();
    this.#liveDiffs.set(id, live);
    return toDisposable(() => {
      if (this.#liveDiffs.get(id) === live) this.#liveDiffs.delete(id);
    });
  }

  liveDiff(id: string): LiveReviewDiff | undefined {
    return this.#liveDiffs.get(id);
  }

  comment(id: string): string {
    return this.#comments.get(id) ?? '';
  }

  setComment(id: string, comment: string): void {
    if (comment) this.#comments.set(id, comment);
    else this.#comments.delete(id);
  }

  /**
   * Accept (with exactly the proposed side as shown, the reviewer's edits included) or reject (with
   * an optional comment). Resolves true once the Hub took the decision.
   */
  async decide(id: string, decision: 'accept' | 'reject', comment = ''): Promise<boolean> {
    const summary = this.pending.value.find((candidate) => candidate.id === id);
    if (!summary || this.deciding.value.has(id)) return false;
    const params: { id: string; decision: 'accept' | 'reject'; finalContents?: string; comment?: string } = { id, decision };
    if (comment.trim()) params.comment = comment.slice(0, ReviewConstants.maxCommentChars);
    if (decision === 'accept' && summary.binary === null && summary.change !== 'delete') {
      const shown = this.#liveDiffs.get(id)?.proposedText();
      const item = await this.loadItem(id).catch(() => null);
      // Unedited: leave finalContents out, so the Hub returns the proposal exactly as it came (and a big one need not travel back).
      if (shown !== undefined && shown !== null && (item === null || shown !== item.newContents)) {
        if (!fitsInOneCall(this.#options.appState.host, shown)) {
          this.#options.reportError(
            `Could not accept ${summary.title}`,
            new Error(`the edited file (${formatMegabytes(jsonByteLength(shown))}) is too large to send from a browser window; accept it unedited or from the desktop app`),
          );
          return false;
        }
        params.finalContents = shown;
      }
    }
    this.deciding.update((set) => new Set(set).add(id));
    try {
      const decided = await this.#options.client.call('review.decide', params);
      const next = this.#neighbour(id);
      this.#decided(decided);
      // Work through the queue: the next pending review comes up ("all caught up" after the last,
      // so the next review to arrive shows by itself).
      if (this.selectedId.value === id) this.selectedId.set(next);
      return true;
    } catch (error) {
      this.#options.reportError(decision === 'accept' ? `Could not accept ${summary.title}` : `Could not reject ${summary.title}`, error);
      return false;
    } finally {
      this.deciding.update((set) => {
        const next = new Set(set);
        next.delete(id);
        return next;
      });
    }
  }

  async loadOlderDecided(): Promise<void> {
    const oldest = this.decided.value.at(-1);
    if (!oldest?.decision) return;
    try {
      const { decided } = await this.#options.client.call('review.list', {
        decidedLimit: ReviewUiConstants.decidedPageSize,
        decidedBefore: oldest.decision.at,
      });
      const known = new Set(this.decided.value.map((summary) => summary.id));
      this.decided.set([...this.decided.value, ...decided.filter((summary) => !known.has(summary.id))]);
      this.decidedComplete.set(decided.length < ReviewUiConstants.decidedPageSize);
    } catch (error) {
      this.#options.reportError('Could not load older reviews', error);
    }
  }

  dismissWithdrawn(id: string): void {
    if (!this.withdrawn.value.has(id)) return;
    const next = new Map(this.withdrawn.value);
    next.delete(id);
    this.withdrawn.set(next);
    if (this.selectedId.value === id) this.selectedId.set(this.pending.value[0]?.id ?? null);
  }

  /** A path as the person reads it (relative to the workspace). */
  displayPath(path: string) {
    return displayPath(path, this.#options.appState.workspaceFolders, this.#options.appState.homeDir);
  }

  #added(summary: ReviewSummary): void {
    if (this.pending.value.some((candidate) => candidate.id === summary.id)) return;
    this.pending.set([...this.pending.value, summary]);
    this.#notify(summary);
  }

  #decided(summary: ReviewSummary): void {
    this.#items.delete(summary.id);
    this.#comments.delete(summary.id);
    this.#liveDiffs.get(summary.id)?.dispose();
    this.#liveDiffs.delete(summary.id);
    if (this.pending.value.some((candidate) => candidate.id === summary.id)) {
      this.pending.set(this.pending.value.filter((candidate) => candidate.id !== summary.id));
    }
    if (!this.decided.value.some((candidate) => candidate.id === summary.id)) this.decided.set([summary, ...this.decided.value]);
  }

  #removed(id: string, reason: ReviewRemovalReason): void {
    const summary = this.pending.value.find((candidate) => candidate.id === id);
    if (!summary) return;
    this.#items.delete(id);
    this.#comments.delete(id);
    this.#liveDiffs.get(id)?.dispose();
    this.#liveDiffs.delete(id);
    this.pending.set(this.pending.value.filter((candidate) => candidate.id !== id));
    // The person may be looking at it: say what happened rather than swap the screen under them.
    if (this.selectedId.value === id) this.withdrawn.set(new Map(this.withdrawn.value).set(id, { summary, reason }));
  }

  /** The pending review to show after `id` is decided: the next one, else the one before. */
  #neighbour(id: string): string | null {
    const pending = this.pending.value;
    const index = pending.findIndex((summary) => summary.id === id);
    return pending[index + 1]?.id ?? pending[index - 1]?.id ?? null;
  }

  #notify(summary: ReviewSummary): void {
    // In view, the badge and the list are enough; a desktop notification is for when the person is away.
    if (document.hasFocus() || typeof Notification === 'undefined') return;
    const show = () => {
      const where = this.displayPath(summary.path).text;
      const shown = new Notification(`Review: ${summary.title}`, {
        body: `${sourceLabel(summary.source)} proposes a change to ${where}`,
        tag: `${ReviewUiConstants.notificationTagPrefix}${summary.id}`,
      });
      shown.onclick = () => {
        window.focus();
        this.files.activeId.set(null);
        this.selectedId.set(summary.id);
        this.#options.showReview();
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

  // ---- file tabs ------------------------------------------------------------------------------

  /** Open a file in a tab of the Review view (from a review, or a path the person chose). */
  openFile(path: string): void {
    this.files.open({ path, selection: null, preview: false, focus: true });
    this.#options.showReview();
  }

  #openFileRequested(request: Parameters<FileTabs['open']>[0]): void {
    this.files.open(request);
    if (!request.focus) return;
    this.#options.showReview();
    window.focus();
  }

  // ---- selections and "Send to Claude" --------------------------------------------------------

  /**
   * A selection changed in a file tab, diff view or pane: the Hub hears of it once it settles
   * (Claude Code's `selection_changed`), and it becomes what Ctrl+Alt+K sends.
   */
  reportSelection(report: SelectionReport, send: SendPayload | null): void {
    if (send) this.#latestSend = send;
    else if (report.text === '' && report.source === 'terminal') this.#latestSend = null;
    const text = report.text.length > ReviewConstants.maxSelectionChars ? report.text.slice(0, ReviewConstants.maxSelectionChars) : report.text;
    this.#pendingSelection = { ...report, text };
    clearTimeout(this.#selectionTimer);
    this.#selectionTimer = setTimeout(() => this.#flushSelection(), ReviewUiConstants.selectionReportDelayMs);
  }

  #flushSelection(): void {
    const report = this.#pendingSelection;
    this.#pendingSelection = null;
    if (!report || this.store.isDisposed) return;
    this.#options.client.call('editor.setSelection', report).catch((error: unknown) => {
      if (errorCode(error) !== 'CONNECTION_CLOSED') this.#options.reportError('Could not share the selection with Claude Code', error);
    });
  }

  /** Panes with a connected Claude Code, in the order of the terminal list. */
  claudeTargets(): ClaudeTarget[] {
    return claudeTargetsOf(this.ide.value, this.#options.terminals.value);
  }

  /** Ctrl+Alt+K: send the latest selection (file tab, diff view or pane). */
  sendLatestSelection(): void {
    if (!this.#latestSend) {
      this.#options.reportError('Nothing to send to Claude', new Error('select some text in a file tab, a diff or a pane first'));
      return;
    }
    this.requestSend(this.#latestSend);
  }

  /** Send to the one connected Claude Code, or let the person pick when there are several. */
  requestSend(payload: SendPayload): void {
    const targets = this.claudeTargets();
    if (targets.length === 0) {
      this.#options.reportError('Could not send to Claude', new Error(noClaudeMessage));
      return;
    }
    if (targets.length === 1) void this.sendTo(targets[0]!.terminalId, payload);
    else this.sendPicker.set(payload);
  }

  async sendTo(terminalId: string, payload: SendPayload): Promise<boolean> {
    this.sendPicker.set(null);
    const params =
      payload.kind === 'text'
        ? { terminalId, text: payload.text.slice(0, ReviewConstants.maxSelectionChars) }
        : {
            terminalId,
            path: payload.path,
            ...(payload.lineStart !== undefined ? { lineStart: payload.lineStart } : {}),
            ...(payload.lineEnd !== undefined ? { lineEnd: payload.lineEnd } : {}),
          };
    try {
      await this.#options.client.call('ide.sendToClaude', params);
      // Claude Code now has it in its prompt: the person goes there to write the rest.
      this.#options.revealTerminal(terminalId);
      return true;
    } catch (error) {
      const what = payload.kind === 'file' ? fileName(payload.path) : 'the selection';
      this.#options.reportError(`Could not send ${what} to Claude`, error);
      return false;
    }
  }
}

/** Why "Send to Claude" is disabled when no pane has Claude Code. */
export const noClaudeMessage = 'No Claude Code is connected: run `claude` in a Switchboard terminal (it connects to the app by itself), then try again.';

export function claudeTargetsOf(ide: IdeState | null, terminals: ReadonlyMap<string, TerminalInfo>): ClaudeTarget[] {
  if (!ide) return [];
  const targets: ClaudeTarget[] = [];
  const seen = new Set<string>();
  for (const client of ide.clients) {
    const terminal = client.terminalId ? terminals.get(client.terminalId) : undefined;
    if (!terminal || terminal.state !== 'running' || seen.has(terminal.id)) continue;
    seen.add(terminal.id);
    targets.push({ terminalId: terminal.id, terminalName: terminal.name, clientName: client.name });
  }
  return targets.sort((a, b) => (terminals.get(a.terminalId)?.createdAt ?? 0) - (terminals.get(b.terminalId)?.createdAt ?? 0));
}

function readPreference<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
  try {
    const value = localStorage.getItem(key);
    return allowed.includes(value as T) ? (value as T) : fallback;
  } catch {
    return fallback;
  }
}

function writePreference(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Without storage the choice lasts until the window closes; that is all.
  }
}
