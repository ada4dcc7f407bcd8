/**
 * The window's state and actions, outside React: the terminal list (kept in sync with Hub events),
 * the tabs/splits layout (persisted to the Hub), settings, the pane sessions, and transient UI
 * state (current view, dialogs, rename, search). One Workbench lives per Hub connection; React
 * components read its observables and call its methods.
 */
import type { AppState, CreateTerminalParams, EventPayload, Layout, Settings, TerminalInfo } from '../../src/common/api/contract.ts';
import type { IHubClient } from '../../src/common/api/hubClient.ts';
import { z } from 'zod';
import { Disposable, toDisposable } from '../../src/common/lifecycle.ts';
import { TerminalConstants } from '../../src/common/constants.ts';
import {
  activeTab,
  addTab,
  allTerminalIds,
  emptyLayout,
  findTabOf,
  focusTerminal,
  moveTab,
  pruneLayout,
  removeTerminal,
  replacePane,
  sameLayout,
  setActiveTab,
  setSplitSizes,
  splitPane,
  terminalIdsOf,
  type SplitDirection,
} from '../features/terminals/layoutModel.ts';
import { SessionRegistry } from '../features/terminals/sessionRegistry.ts';
import type { TypeAheadStore } from '../features/terminals/typeAhead.ts';
import { AgentActivity } from '../features/activity/agentActivity.ts';
import { HistoryService, type HistoryOpenRequest } from '../features/history/historyService.ts';
import { ReviewService } from '../features/review/reviewService.ts';
import { WorktreeService } from '../features/workspaces/worktreeService.ts';
import type { AgentStartInput, AgentStartResult } from '../../src/common/api/workspaceContract.ts';
import { RelayState } from '../features/relay/relayState.ts';
import { AgentWatch } from '../features/agents/agentWatch.ts';
import { neighbourPane, type PaneDirection } from '../features/terminals/paneNavigation.ts';
import { errorCode, type ErrorList } from './errorList.ts';
import { commandForEvent, type CommandId } from './keybindings.ts';
import { ObservableValue } from './observable.ts';
import { ColorSchemeTracker } from './theme.ts';
import type { UnsavedLayout } from './unsavedLayout.ts';

const mainViews = ['terminals', 'activity', 'history', 'review', 'settings'] as const;
export type MainView = (typeof mainViews)[number];

/** The view this window shows, kept across a reload (session storage: this window's, gone when it closes). */
const viewStorageKey = 'switchboard.view';

function loadView(): MainView {
  try {
    const stored = globalThis.sessionStorage?.getItem(viewStorageKey);
    return mainViews.find((view) => view === stored) ?? 'terminals';
  } catch {
    // Storage refused (a sandboxed page): the terminals.
    return 'terminals';
  }
}

function saveView(view: MainView): void {
  try {
    globalThis.sessionStorage?.setItem(viewStorageKey, view);
  } catch {
    // Not kept: a reload shows the terminals, as before.
  }
}
export type Dialog = 'newTerminal' | 'newAgent' | 'shortcuts' | 'runAndHand' | null;

/** Terminals waiting for "close anyway?": closing them would end what still runs there. */
export interface PendingClose {
  terminalIds: string[];
  /** The busy ones: name and what runs. */
  busy: Array<{ name: string; running: string }>;
}

/** The sidebar's width in pixels: the default, and the range a drag keeps it in. */
export const sidebarWidths = { default: 248, min: 180, max: 480 } as const;
/** This window's sidebar width and whether it is hidden, remembered in the browser's storage (a view preference, not a setting of the Hub). */
const sidebarStorageKey = 'switchboard.sidebar';

/** What may be in storage: anything else (another version's, edited by hand) counts as nothing stored. */
const StoredSidebar = z.object({ width: z.number().finite(), hidden: z.boolean() });

function loadSidebar(): { width: number; hidden: boolean } {
  try {
    const stored = StoredSidebar.safeParse(JSON.parse(globalThis.localStorage?.getItem(sidebarStorageKey) ?? 'null'));
    if (stored.success) return { width: clampSidebarWidth(stored.data.width), hidden: stored.data.hidden };
  } catch {
    // Unreadable storage or JSON: the defaults.
  }
  return { width: sidebarWidths.default, hidden: false };
}

export function clampSidebarWidth(width: number): number {
  return Math.round(Math.min(sidebarWidths.max, Math.max(sidebarWidths.min, width)));
}

/** A question before an action that cannot be undone (ConfirmDialog). */
export interface ConfirmRequest {
  title: string;
  message: string;
  confirmLabel: string;
  onConfirm(): void;
}

/** Programs that are a shell at their prompt when nothing else runs in them. */
const shellPrograms = new Set(['bash', 'zsh', 'fish', 'sh', 'dash', 'ksh', 'mksh', 'tcsh', 'csh', 'nu', 'pwsh', 'xonsh', 'elvish']);

/** What still runs in a terminal that closing it would end, or null when it is idle or exited. */
export function busyWith(info: TerminalInfo): string | null {
  if (info.state !== 'running') return null;
  if (info.runningCommand !== null) return info.runningCommand;
  const program = info.file.split(/[\\/]/).pop()!.replace(/^-/, '');
  // Without shell integration a shell may be busy too, but there is no telling; a program that
  // is not a shell (`claude`, `npm run dev` started as the terminal's command) is what it runs.
  if (shellPrograms.has(program)) return null;
  return [program, ...info.args].join(' ');
}

/**
 * Save the layout this long after the last change: a drag or a burst of splits becomes one
 * write, and it is short enough that a reload right after a change still finds it saved.
 */
const layoutSaveDelayMs = 150;

export class Workbench extends Disposable {
  readonly client: IHubClient;
  readonly appState: AppState;
  readonly errors: ErrorList;

  readonly terminals = this.register(new ObservableValue<ReadonlyMap<string, TerminalInfo>>(new Map()));
  readonly layout = this.register(new ObservableValue<Layout>(emptyLayout));
  readonly settings: ObservableValue<Settings>;
  readonly colorScheme: ColorSchemeTracker;
  readonly sessions: SessionRegistry;
  /** What agents did and are typing (Activity view, pane activity lines). */
  readonly activity: AgentActivity;
  /** Recording status, "don't record" marks, and requests to open a session in the History view. */
  readonly history: HistoryService;
  /** Pending and decided reviews (badge, title, notifications), Claude Code connections, file tabs, Send to Claude. */
  readonly review: ReviewService;
  /** Remote access: the relay client's status and the panes shared to it. */
  readonly relay: RelayState;
  /** Agents' states: "Waiting for you", the title count, notifications, answering prompts. */
  readonly agents: AgentWatch;
  /** Agent profiles and the worktrees agents work in, with their changes. */
  readonly worktrees: WorktreeService;
  /** False until the terminal list and the layout are loaded. */
  readonly ready = this.register(new ObservableValue(false));

  readonly view = this.register(new ObservableValue<MainView>(loadView()));
  readonly dialog = this.register(new ObservableValue<Dialog>(null));
  readonly pendingClose = this.register(new ObservableValue<PendingClose | null>(null));
  readonly pendingConfirm = this.register(new ObservableValue<ConfirmRequest | null>(null));
  readonly sidebar = this.register(new ObservableValue(loadSidebar()));
  readonly renamingTerminalId = this.register(new ObservableValue<string | null>(null));
  /** Where the rename field shows: in the tab (double-clicked, or the sidebar is hidden) or in the sidebar. */
  readonly renamingInTab = this.register(new ObservableValue(false));
  readonly searchTerminalId = this.register(new ObservableValue<string | null>(null));
  /** Bumped to ask the focused pane to take keyboard focus (after a click elsewhere, a dialog…). */
  readonly focusRequest = this.register(new ObservableValue(0));

  /** Per tab, the pane that last had focus, so switching back returns to it. */
  readonly #lastFocusedByTab = new Map<string, string>();
  #layoutSaveTimer: ReturnType<typeof setTimeout> | undefined;
  #layoutSaveInFlight: Promise<unknown> | undefined;
  /** Layouts this window sent recently; their `layout.changed` echoes are not news. */
  readonly #sentLayouts: string[] = [];
  readonly #markSeenInFlight = new Set<string>();
  /** Agent panes whose Start again runs: their pane stays in the layout until the new one replaces it. */
  readonly #replacing = new Set<string>();
  readonly #unsavedLayout: UnsavedLayout;
  #nextTabNumber = 1;
  readonly #typeAhead: TypeAheadStore;

  /** `typeAhead` and `unsavedLayout` belong to the window and outlive this Workbench: a reconnect builds the next one on them. */
  constructor(client: IHubClient, appState: AppState, errors: ErrorList, typeAhead: TypeAheadStore, unsavedLayout: UnsavedLayout) {
    super();
    this.#unsavedLayout = unsavedLayout;
    this.#typeAhead = typeAhead;
    this.register(this.view.onDidChange(saveView));
    this.client = client;
    this.appState = appState;
    this.errors = errors;
    this.settings = this.register(new ObservableValue(appState.settings));
    this.colorScheme = this.register(new ColorSchemeTracker(appState.settings.theme));
    this.register(this.settings.onDidChange((settings) => this.colorScheme.setPreference(settings.theme)));
    this.sessions = this.register(
      new SessionRegistry({
        client,
        settings: this.settings,
        colorScheme: this.colorScheme.scheme,
        terminals: this.terminals,
        isAppShortcut: (event) => commandForEvent(event) !== undefined,
        reportError: (title, error) => this.errors.report(title, error),
        onDidFocusTerminal: (terminalId) => this.#noteFocus(terminalId),
        typeAhead,
      }),
    );
    this.activity = this.register(new AgentActivity(client));
    this.history = this.register(new HistoryService(client, (title, error) => this.errors.report(title, error)));
    this.review = this.register(
      new ReviewService({
        client,
        appState,
        terminals: this.terminals,
        reportError: (title, error) => this.errors.report(title, error),
        showReview: () => this.showView('review'),
        revealTerminal: (terminalId) => this.revealTerminal(terminalId),
      }),
    );
    this.relay = this.register(new RelayState(client, (title, error) => this.errors.report(title, error)));
    this.agents = this.register(
      new AgentWatch({
        client,
        terminals: this.terminals,
        pendingReviews: this.review.pending,
        settings: this.settings,
        ready: this.ready,
        ownsTitle: appState.host !== 'remote',
        revealTerminal: (terminalId) => this.revealTerminal(terminalId),
        reportError: (title, error) => this.errors.report(title, error),
        showReview: (reviewId) => {
          this.review.files.activeId.set(null);
          this.review.select(reviewId);
          this.showView('review');
        },
      }),
    );
    this.worktrees = this.register(new WorktreeService(client, (title, error) => this.errors.report(title, error)));
    this.register(toDisposable(() => clearTimeout(this.#layoutSaveTimer)));
  }

  async start(): Promise<void> {
    this.sessions.start();
    const { client } = this;
    // The remote view (host 'remote') reaches the machine only through relay frames: it has no
    // audit log, history, review queue or relay settings to load (features/remote has its own views).
    if (this.appState.host !== 'remote') {
      // Not awaited: the terminals must not wait for the audit log.
      this.activity.start().catch((error: unknown) => this.errors.report('Could not load the agent activity', error));
      void this.history.start();
      void this.review.start();
      void this.relay.start();
      void this.worktrees.start();
    }

    // Events that arrive while the list is loading are applied after it, in order.
    let queue: (() => void)[] | undefined = [];
    const apply = (change: () => void) => (queue ? queue.push(change) : change());
    this.register(client.on('terminal.added', (info) => apply(() => this.#upsertTerminal(info))));
    this.register(client.on('terminal.changed', (info) => apply(() => this.#upsertTerminal(info))));
    this.register(client.on('terminal.removed', ({ id }) => apply(() => this.#removeTerminal(id))));
    this.register(client.on('terminal.notification', (notification) => this.#showNotification(notification)));
    this.register(client.on('settings.changed', (settings) => this.settings.set(settings)));
    this.register(client.on('layout.changed', (layout) => this.#adoptRemoteLayout(layout)));
    // An agent asked to show a terminal (claws `show`, or `create` with show:true).
    this.register(client.on('terminal.reveal', ({ id, preserveFocus }) => apply(() => this.revealTerminal(id, { preserveFocus }))));

    const list = await client.call('terminal.list', {});
    if (this.store.isDisposed) return;
    this.terminals.set(new Map(list.map((info) => [info.id, info])));
    const queued = queue;
    queue = undefined;
    queued.forEach((change) => change());

    // A change the last connection could not save (this is a reconnect) wins over the Hub's older layout.
    const hubLayout = this.appState.layout;
    const unsaved = this.#unsavedLayout.takeIfHubHolds(hubLayout);
    this.#unsavedLayout.noteHubHolds(hubLayout);
    const saved = unsaved ?? hubLayout;
    const restored = pruneLayout(saved ?? emptyLayout, (id) => this.terminals.value.has(id));
    this.#setLayout(restored, { persist: !sameLayout(restored, hubLayout) });
    this.ready.set(true);
    // A first start, or a saved layout whose terminals all ended with the server: start one. A
    // layout the user emptied on purpose stays empty.
    if (restored.tabs.length === 0 && (saved === null || saved.tabs.length > 0)) await this.newTerminal();

    this.#watchWindow();
    this.requestPaneFocus();
  }

  // ---- terminals ------------------------------------------------------------------------------

  /**
   * Starts a terminal in a new tab, or beside/below a pane when `split` is given. Resolves with it
   * (undefined if it could not start: the error is reported, or with `throwErrors` thrown).
   */
  async newTerminal(
    options: {
      cwd?: string;
      split?: { targetId: string; direction: SplitDirection };
      throwErrors?: boolean;
      /** Asked for with a key or a button: keys typed from now on are for the new pane (TypeAheadStore.holdKeysForNewTerminal). */
      takeKeys?: boolean;
    } = {},
  ): Promise<TerminalInfo | undefined> {
    const params: CreateTerminalParams = {};
    if (options.cwd) params.cwd = options.cwd;
    const size = this.#estimateNewPaneSize(options.split);
    if (size) Object.assign(params, size);
    const handKeysTo = options.takeKeys ? this.#typeAhead.holdKeysForNewTerminal() : undefined;
    let info: TerminalInfo;
    try {
      info = await this.client.call('terminal.create', params);
    } catch (error) {
      handKeysTo?.(null);
      if (options.throwErrors) throw error;
      this.errors.report('Could not start a terminal', error);
      this.requestPaneFocus();
      return undefined;
    }
    handKeysTo?.(info.id);
    if (this.store.isDisposed) return undefined;
    this.#upsertTerminal(info);
    const layout = this.layout.value;
    const split = options.split;
    if (split && findTabOf(layout, split.targetId)) {
      this.#setLayout(splitPane(layout, split.targetId, info.id, split.direction));
    } else {
      this.#setLayout(addTab(layout, this.#newTabId(), info.id));
    }
    this.view.set('terminals');
    this.requestPaneFocus();
    return info;
  }

  /**
   * Starts an agent from a profile (in a new worktree when asked) and opens its pane in a new tab,
   * sized like the pane in focus so the agent's first screen is drawn at its real size.
   */
  async startAgent(params: AgentStartInput): Promise<AgentStartResult> {
    const result = await this.worktrees.startAgent({ ...this.#estimateNewPaneSize(), ...params });
    if (this.store.isDisposed) return result;
    if (!this.terminals.value.has(result.terminalId)) {
      const info = (await this.client.call('terminal.list', {})).find((entry) => entry.id === result.terminalId);
      if (info) this.#upsertTerminal(info);
    }
    this.revealTerminal(result.terminalId);
    return result;
  }

  /**
   * Start again (an agent that was not resumed after a restart, or that exited): the Hub starts
   * its profile afresh in the same folder in a new pane and closes the old one; the new pane takes
   * the old one's place in the layout (its removal is held back until then).
   */
  async restartAgent(terminalId: string, options: { prompt: boolean }): Promise<void> {
    this.#replacing.add(terminalId);
    try {
      const result = await this.client.call('agent.restart', { terminalId, prompt: options.prompt });
      if (this.store.isDisposed) return;
      if (!this.terminals.value.has(result.terminalId)) {
        const info = (await this.client.call('terminal.list', {})).find((entry) => entry.id === result.terminalId);
        if (info) this.#upsertTerminal(info);
      }
      const layout = this.layout.value;
      this.#setLayout(findTabOf(layout, terminalId) ? replacePane(layout, terminalId, result.terminalId) : addTab(layout, this.#newTabId(), result.terminalId));
      this.focusPane(result.terminalId);
    } catch (error) {
      this.errors.report('Could not start the agent again', error);
    } finally {
      this.#replacing.delete(terminalId);
      if (!this.terminals.value.has(terminalId)) this.#setLayout(removeTerminal(this.layout.value, terminalId));
    }
  }

  async splitFocused(direction: SplitDirection): Promise<void> {
    const targetId = this.focusedTerminalId;
    if (!targetId) {
      await this.newTerminal({ takeKeys: true });
      return;
    }
    const target = this.terminals.value.get(targetId);
    await this.newTerminal({ cwd: target?.cwd, split: { targetId, direction }, takeKeys: true });
  }

  /** Ends the terminal's process and removes it (its pane goes at once). */
  closeTerminal(terminalId: string | null = this.focusedTerminalId): void {
    if (!terminalId) return;
    this.#setLayout(removeTerminal(this.layout.value, terminalId));
    this.client.call('terminal.close', { id: terminalId }).catch((error: unknown) => {
      if (errorCode(error) === 'NOT_FOUND') return; // already gone
      this.errors.report('Could not close the terminal', error);
    });
    this.requestPaneFocus();
  }

  closeTab(tabId: string): void {
    const tab = this.layout.value.tabs.find((candidate) => candidate.id === tabId);
    if (!tab) return;
    this.requestClose(terminalIdsOf(tab.root));
  }

  /**
   * Close terminals as a person asked to (close button, shortcut, tab ×): when one still runs a
   * command or program, ask first (pendingClose), as ending it cannot be undone.
   */
  requestClose(terminalIds: readonly string[]): void {
    const busy = terminalIds.flatMap((id) => {
      const info = this.terminals.value.get(id);
      const running = info ? busyWith(info) : null;
      return info && running !== null ? [{ name: info.name, running }] : [];
    });
    if (busy.length === 0) {
      for (const id of terminalIds) this.closeTerminal(id);
      return;
    }
    this.pendingClose.set({ terminalIds: [...terminalIds], busy });
  }

  startRename(terminalId: string, where: 'sidebar' | 'tab'): void {
    this.renamingInTab.set(where === 'tab');
    this.renamingTerminalId.set(terminalId);
  }

  /** Show/hide the sidebar or set its width (kept for the next start). */
  setSidebar(change: { width?: number; hidden?: boolean }): void {
    const next = { ...this.sidebar.value, ...change };
    next.width = clampSidebarWidth(next.width);
    this.sidebar.set(next);
    try {
      globalThis.localStorage?.setItem(sidebarStorageKey, JSON.stringify(next));
    } catch {
      // Storage refused (private mode, full): the choice lasts until the page reloads.
    }
  }

  /** Ask before an action that cannot be undone; `onConfirm` runs only if the person agrees. */
  confirm(request: ConfirmRequest): void {
    this.pendingConfirm.set(request);
  }

  settleConfirm(confirmed: boolean): void {
    const request = this.pendingConfirm.value;
    this.pendingConfirm.set(null);
    if (request && confirmed) request.onConfirm();
    this.requestPaneFocus();
  }

  /** The person confirmed (true) or cancelled the pending close. */
  settlePendingClose(confirmed: boolean): void {
    const pending = this.pendingClose.value;
    this.pendingClose.set(null);
    if (pending && confirmed) for (const id of pending.terminalIds) this.closeTerminal(id);
    else this.requestPaneFocus();
  }

  /**
   * Starts a replacement for an exited terminal in the same pane: same folder and name, and the
   * same program when it was not a plain shell (a shell's arguments may hold the Hub's own
   * shell-integration flags, so shells restart as the default shell).
   */
  async restartTerminal(terminalId: string): Promise<void> {
    const previous = this.terminals.value.get(terminalId);
    if (!previous) return;
    const params: CreateTerminalParams = { cwd: previous.cwd, name: previous.name };
    if (!previous.shellIntegration) {
      params.file = previous.file;
      params.args = previous.args;
    }
    const session = this.sessions.get(terminalId);
    if (session) Object.assign(params, { cols: session.terminal.cols, rows: session.terminal.rows });
    let info: TerminalInfo;
    try {
      info = await this.client.call('terminal.create', params);
    } catch (error) {
      this.errors.report('Could not restart the terminal', error);
      return;
    }
    if (this.store.isDisposed) return;
    this.#upsertTerminal(info);
    const layout = this.layout.value;
    this.#setLayout(findTabOf(layout, terminalId) ? replacePane(layout, terminalId, info.id) : addTab(layout, this.#newTabId(), info.id));
    this.closeTerminal(terminalId);
    this.requestPaneFocus();
  }

  async renameTerminal(terminalId: string, name: string): Promise<void> {
    const trimmed = name.trim();
    const current = this.terminals.value.get(terminalId);
    if (!trimmed || !current || trimmed === current.name) return;
    try {
      this.#upsertTerminal(await this.client.call('terminal.rename', { id: terminalId, name: trimmed.slice(0, 200) }));
    } catch (error) {
      this.errors.report('Could not rename the terminal', error);
    }
  }

  /**
   * Shows a terminal: switches to its tab, or opens it in a new tab if no pane shows it.
   *
   * With preserveFocus (an agent's `create`/`show`), the pane the person has the keyboard in is
   * never hidden or unfocused: a terminal in no pane opens beside it, in the visible tab (as tmux's
   * `split-window -d`), or in a background tab once that tab holds `revealSplitLimit` panes; a
   * terminal in another tab stays there (switching tabs would hide the person's pane). Outside the
   * terminals view (History, Review) nothing moves under the person: it opens in a background tab.
   */
  revealTerminal(terminalId: string, { preserveFocus = false }: { preserveFocus?: boolean | undefined } = {}): void {
    if (!this.terminals.value.has(terminalId)) return;
    const layout = this.layout.value;
    if (preserveFocus) {
      this.#setLayout(revealBeside(layout, terminalId, this.view.value === 'terminals', this.#newTabId()));
      return;
    }
    this.#setLayout(findTabOf(layout, terminalId) ? focusTerminal(layout, terminalId) : addTab(layout, this.#newTabId(), terminalId));
    this.view.set('terminals');
    this.requestPaneFocus();
  }

  // ---- layout ---------------------------------------------------------------------------------

  get focusedTerminalId(): string | null {
    const layout = this.layout.value;
    const tab = activeTab(layout);
    const focused = layout.focusedTerminalId;
    if (tab && focused && terminalIdsOf(tab.root).includes(focused)) return focused;
    return tab ? (terminalIdsOf(tab.root)[0] ?? null) : null;
  }

  focusPane(terminalId: string): void {
    this.#setLayout(focusTerminal(this.layout.value, terminalId));
    this.requestPaneFocus();
  }

  selectTab(tabId: string): void {
    this.#setLayout(setActiveTab(this.layout.value, tabId, this.#lastFocusedByTab.get(tabId)));
    this.view.set('terminals');
    this.requestPaneFocus();
  }

  cycleTab(step: 1 | -1): void {
    const { tabs, activeTabId } = this.layout.value;
    if (tabs.length < 2) return;
    const index = tabs.findIndex((tab) => tab.id === activeTabId);
    const next = tabs[(index + step + tabs.length) % tabs.length];
    if (next) this.selectTab(next.id);
  }

  moveFocus(direction: PaneDirection): void {
    const from = this.focusedTerminalId;
    if (!from) return;
    const to = neighbourPane(from, direction);
    if (to) this.focusPane(to);
  }

  moveTab(tabId: string, toIndex: number): void {
    this.#setLayout(moveTab(this.layout.value, tabId, toIndex));
  }

  setSplitSizes(tabId: string, path: readonly number[], sizes: readonly number[]): void {
    this.#setLayout(setSplitSizes(this.layout.value, tabId, path, sizes));
  }

  requestPaneFocus(): void {
    this.focusRequest.update((count) => count + 1);
  }

  /** True once the latest layout change has reached the Hub. */
  get isLayoutSaved(): boolean {
    return this.#layoutSaveTimer === undefined && this.#layoutSaveInFlight === undefined;
  }

  // ---- settings -------------------------------------------------------------------------------

  async updateSettings(change: Partial<Settings>): Promise<void> {
    const previous = this.settings.value;
    this.settings.set({ ...previous, ...change });
    try {
      this.settings.set(await this.client.call('settings.update', change));
    } catch (error) {
      this.settings.set(previous);
      this.errors.report('Could not save the setting', error);
    }
  }

  // ---- commands -------------------------------------------------------------------------------

  runCommand(command: CommandId): void {
    const focused = this.focusedTerminalId;
    switch (command) {
      case 'terminal.new':
        void this.newTerminal({ takeKeys: true });
        return;
      case 'terminal.newInFolder':
        this.dialog.set('newTerminal');
        return;
      case 'terminal.splitRight':
        void this.splitFocused('right');
        return;
      case 'terminal.splitDown':
        void this.splitFocused('down');
        return;
      case 'terminal.close':
        if (focused) this.requestClose([focused]);
        return;
      case 'terminal.rename':
        if (focused) this.startRename(focused, this.sidebar.value.hidden ? 'tab' : 'sidebar');
        return;
      case 'terminal.find':
        if (focused) {
          this.view.set('terminals');
          this.searchTerminalId.set(focused);
        }
        return;
      case 'terminal.copy':
        if (focused) this.sessions.get(focused)?.copySelection();
        return;
      case 'terminal.paste':
        if (focused) void this.sessions.get(focused)?.pasteFromClipboard();
        return;
      case 'tab.next':
        this.cycleTab(1);
        return;
      case 'tab.previous':
        this.cycleTab(-1);
        return;
      case 'pane.focusLeft':
        this.moveFocus('left');
        return;
      case 'pane.focusRight':
        this.moveFocus('right');
        return;
      case 'pane.focusUp':
        this.moveFocus('up');
        return;
      case 'pane.focusDown':
        this.moveFocus('down');
        return;
      case 'sidebar.focus':
        if (this.sidebar.value.hidden) {
          this.setSidebar({ hidden: false });
          setTimeout(focusTerminalList, 0); // once the list is on screen again
          return;
        }
        focusTerminalList();
        return;
      case 'sidebar.toggle':
        this.setSidebar({ hidden: !this.sidebar.value.hidden });
        this.requestPaneFocus();
        return;
      case 'view.settings':
        this.view.set(this.view.value === 'settings' ? 'terminals' : 'settings');
        if (this.view.value === 'terminals') this.requestPaneFocus();
        return;
      case 'agent.new':
        // Agents start on the machine's Hub; the remote view reaches it only through the relay.
        if (this.appState.host !== 'remote') this.dialog.set('newAgent');
        return;
      case 'terminal.runAndHand':
        // It hands over what History recorded: the remote view has no History.
        if (this.appState.host !== 'remote') this.dialog.set('runAndHand');
        return;
      case 'view.shortcuts':
        this.dialog.set(this.dialog.value === 'shortcuts' ? null : 'shortcuts');
        return;
      case 'view.history':
        this.showView(this.view.value === 'history' ? 'terminals' : 'history');
        return;
      case 'selection.sendToClaude':
        this.review.sendLatestSelection();
        return;
      case 'agent.jumpToWaiting':
        this.agents.jumpToOldest();
        return;
    }
  }

  /** Opens the History view on a session (optionally scrolled to a byte offset, with words highlighted). */
  openHistorySession(request: HistoryOpenRequest): void {
    this.history.openRequest.set(request);
    this.view.set('history');
  }

  showView(view: MainView): void {
    this.view.set(view);
    if (view === 'terminals') this.requestPaneFocus();
  }

  /** The Review view, showing what an agent changed in its worktree (against the worktree's base). */
  showWorktreeChanges(path: string): void {
    this.review.files.activeId.set(null);
    this.worktrees.changesShown.set(path);
    this.showView('review');
  }

  closeDialog(): void {
    this.dialog.set(null);
    this.requestPaneFocus();
  }

  // ---- internals ------------------------------------------------------------------------------

  #setLayout(layout: Layout, { persist = true }: { persist?: boolean } = {}): void {
    if (layout === this.layout.value) return;
    this.layout.set(layout);
    const tab = activeTab(layout);
    if (tab && layout.focusedTerminalId) this.#lastFocusedByTab.set(tab.id, layout.focusedTerminalId);
    this.sessions.retainOnly(new Set(allTerminalIds(layout)));
    if (persist) {
      this.#unsavedLayout.noteChanged(layout);
      this.#scheduleLayoutSave();
    }
    this.#clearVisibleAttention();
  }

  #scheduleLayoutSave(): void {
    clearTimeout(this.#layoutSaveTimer);
    this.#layoutSaveTimer = setTimeout(() => this.#saveLayout(), layoutSaveDelayMs);
  }

  #saveLayout(): void {
    clearTimeout(this.#layoutSaveTimer);
    this.#layoutSaveTimer = undefined;
    const layout = this.layout.value;
    this.#sentLayouts.push(JSON.stringify(layout));
    if (this.#sentLayouts.length > 8) this.#sentLayouts.shift();
    const saving = this.client
      .call('layout.set', layout)
      .then(() => this.#unsavedLayout.noteHubHolds(layout))
      // A lost connection is not reported (errorList): the change is saved after the reconnect.
      .catch((error: unknown) => this.errors.report('Could not save the window layout', error))
      .finally(() => {
        if (this.#layoutSaveInFlight === saving) this.#layoutSaveInFlight = undefined;
      });
    this.#layoutSaveInFlight = saving;
  }

  /**
   * Another window (or an agent) changed the stored layout: take its tabs and splits, but keep
   * this window's own active tab and focus when they still exist.
   */
  #adoptRemoteLayout(layout: Layout): void {
    const json = JSON.stringify(layout);
    this.#unsavedLayout.noteHubHolds(layout);
    if (this.#sentLayouts.includes(json) || this.#layoutSaveTimer !== undefined) return;
    const current = this.layout.value;
    const merged = pruneLayout(
      { ...layout, activeTabId: current.activeTabId ?? layout.activeTabId, focusedTerminalId: current.focusedTerminalId ?? layout.focusedTerminalId },
      (id) => this.terminals.value.has(id),
    );
    if (!sameLayout(merged, current)) this.#setLayout(merged, { persist: false });
  }

  #upsertTerminal(info: TerminalInfo): void {
    const next = new Map(this.terminals.value);
    next.set(info.id, info);
    this.terminals.set(next);
    if (info.needsAttention) this.#clearVisibleAttention();
  }

  #removeTerminal(terminalId: string): void {
    if (!this.terminals.value.has(terminalId)) return;
    const next = new Map(this.terminals.value);
    next.delete(terminalId);
    this.terminals.set(next);
    if (this.renamingTerminalId.value === terminalId) this.renamingTerminalId.set(null);
    if (this.searchTerminalId.value === terminalId) this.searchTerminalId.set(null);
    // An agent being started again keeps its place until its new pane takes it (restartAgent).
    if (!this.#replacing.has(terminalId)) this.#setLayout(removeTerminal(this.layout.value, terminalId));
  }

  #noteFocus(terminalId: string): void {
    this.#setLayout(focusTerminal(this.layout.value, terminalId));
  }

  #newTabId(): string {
    return `tab-${Date.now().toString(36)}-${(this.#nextTabNumber++).toString(36)}`;
  }

  /** A size close to what the new pane will get, so the shell's first prompt fits at once. */
  #estimateNewPaneSize(split?: { targetId: string; direction: SplitDirection }): { cols: number; rows: number } | undefined {
    const reference = this.sessions.get(split?.targetId ?? this.focusedTerminalId ?? '');
    if (!reference) return undefined;
    let { cols, rows } = reference.terminal;
    if (split?.direction === 'right') cols = Math.floor((cols - 1) / 2);
    if (split?.direction === 'down') rows = Math.floor((rows - 1) / 2);
    if (cols < TerminalConstants.minCols || rows < TerminalConstants.minRows) return undefined;
    return { cols: Math.min(cols, TerminalConstants.maxCols), rows: Math.min(rows, TerminalConstants.maxRows) };
  }

  /** Panes of the active tab are in view: their attention badges are read. */
  #clearVisibleAttention(): void {
    if (typeof document === 'undefined' || !document.hasFocus() || document.visibilityState !== 'visible') return;
    if (this.view.value !== 'terminals') return;
    const tab = activeTab(this.layout.value);
    if (!tab) return;
    for (const terminalId of terminalIdsOf(tab.root)) {
      if (!this.terminals.value.get(terminalId)?.needsAttention || this.#markSeenInFlight.has(terminalId)) continue;
      this.#markSeenInFlight.add(terminalId);
      this.client
        .call('terminal.markSeen', { id: terminalId })
        .catch((error: unknown) => {
          if (errorCode(error) !== 'NOT_FOUND') this.errors.report('Could not clear the attention badge', error);
        })
        .finally(() => this.#markSeenInFlight.delete(terminalId));
    }
  }

  #showNotification(notification: EventPayload<'terminal.notification'>): void {
    // In view, the badge (cleared at once) is enough; a desktop notification is for when the user is away.
    if (document.hasFocus() || typeof Notification === 'undefined') return;
    const name = this.terminals.value.get(notification.id)?.name ?? 'Terminal';
    const show = () => {
      const shown = new Notification(notification.title || name, { body: notification.body || `${name} needs attention`, tag: notification.id });
      shown.onclick = () => {
        window.focus();
        this.revealTerminal(notification.id);
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

  #watchWindow(): void {
    const onAttentionChance = () => this.#clearVisibleAttention();
    window.addEventListener('focus', onAttentionChance);
    document.addEventListener('visibilitychange', onAttentionChance);
    this.register(this.view.onDidChange(onAttentionChance));
    // A reload right after a layout change must not lose it.
    const onUnload = () => {
      if (this.#layoutSaveTimer !== undefined) this.#saveLayout();
    };
    window.addEventListener('pagehide', onUnload);
    this.register(
      toDisposable(() => {
        window.removeEventListener('focus', onAttentionChance);
        document.removeEventListener('visibilitychange', onAttentionChance);
        window.removeEventListener('pagehide', onUnload);
      }),
    );
  }
}

function focusTerminalList(): void {
  const target =
    document.querySelector<HTMLElement>('[data-terminal-list] [aria-current="true"]') ??
    document.querySelector<HTMLElement>('[data-terminal-list] button');
  target?.focus();
}

/** Panes a tab may hold before an agent's new terminal opens in a background tab instead of beside the person's. */
export const revealSplitLimit = 4;

/**
 * revealTerminal with preserveFocus, as a pure layout change: the active tab and the focused pane
 * stay as they are.
 */
export function revealBeside(layout: Layout, terminalId: string, terminalsVisible: boolean, newTabId: string): Layout {
  // Already in a pane: in the visible tab it shows already; in another, switching would hide the person's pane.
  if (findTabOf(layout, terminalId)) return layout;
  const keep = (next: Layout): Layout => ({ ...next, activeTabId: layout.activeTabId, focusedTerminalId: layout.focusedTerminalId });
  const tab = activeTab(layout);
  const focused = layout.focusedTerminalId;
  if (!tab) return addTab(layout, newTabId, terminalId);
  if (terminalsVisible && focused && terminalIdsOf(tab.root).includes(focused) && terminalIdsOf(tab.root).length < revealSplitLimit) {
    return keep(splitPane(layout, focused, terminalId, 'right'));
  }
  return keep(addTab(layout, newTabId, terminalId));
}
