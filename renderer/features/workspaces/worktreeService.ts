/**
 * The window's side of agent workspaces (issue 20): the agent profiles, the worktrees Switchboard
 * made with their changes (kept live from `worktree.changed` / `worktree.removed`, which the Hub
 * sends after file changes settle — nothing here polls), and which worktree's changes the Review
 * view shows. Owned by the Workbench.
 */
import type { IHubClient } from '../../../src/common/api/hubClient.ts';
import type { AgentPaneInfo, AgentProfileAvailability, AgentStartInput, AgentStartResult, WorktreeInfo } from '../../../src/common/api/workspaceContract.ts';
import { Disposable } from '../../../src/common/lifecycle.ts';
import { ObservableValue } from '../../app/observable.ts';
import { WorktreeReviewState } from './changes/worktreeReviewState.ts';

export class WorktreeService extends Disposable {
  readonly #client: IHubClient;
  readonly #reportError: (title: string, error: unknown) => void;
  /** Every worktree Switchboard made, by path, in the order they were made. */
  readonly worktrees = this.register(new ObservableValue<ReadonlyMap<string, WorktreeInfo>>(new Map()));
  /** The profiles, with whether each one's program is installed (loaded on demand: `loadProfiles`). */
  readonly profiles = this.register(new ObservableValue<readonly AgentProfileAvailability[] | null>(null));
  /** The panes started from a profile, by terminal id: started, resumed after a restart, or not resumed (and why). */
  readonly agentPanes = this.register(new ObservableValue<ReadonlyMap<string, AgentPaneInfo>>(new Map()));
  /** The worktree whose changes the Review view shows; null: the review queue. */
  readonly changesShown = this.register(new ObservableValue<string | null>(null));
  /** What the Review view keeps per worktree: line comments, scope, file shown, the last finish's outcome. */
  readonly review = this.register(new WorktreeReviewState());

  constructor(client: IHubClient, reportError: (title: string, error: unknown) => void) {
    super();
    this.#client = client;
    this.#reportError = reportError;
    // Asked for now: shown until a review is picked after this (ReviewService.lastSelectAt).
    this.register(
      this.changesShown.onDidChange((path) => {
        if (path === null) return;
        this.review.shownAt = performance.now();
        // "Discarded …", "Merged …" was about the worktree finished; another one shown makes it old news.
        if (this.review.notice.value?.tone === 'ok') this.review.notice.set(null);
      }),
    );
  }

  /** Subscribes first, then lists, so a change in between is not lost (the event's copy is newer). */
  async start(): Promise<void> {
    const seen = new Set<string>();
    this.register(
      this.#client.on('worktree.changed', (info) => {
        seen.add(info.path);
        this.#upsert(info);
      }),
    );
    this.register(this.#client.on('worktree.removed', ({ path }) => this.#remove(path)));
    let panesSeen = false;
    this.register(
      this.#client.on('agent.panesChanged', (panes) => {
        panesSeen = true;
        this.#setPanes(panes);
      }),
    );
    void this.#client.call('agent.panes', {}).then(
      (panes) => !panesSeen && !this.store.isDisposed && this.#setPanes(panes),
      (error: unknown) => this.#reportError('Could not list the agent panes', error),
    );
    try {
      const listed = await this.#client.call('worktree.list', {});
      if (this.store.isDisposed) return;
      for (const info of listed) if (!seen.has(info.path)) this.#upsert(info);
    } catch (error) {
      this.#reportError('Could not list the agents’ worktrees', error);
    }
  }

  /** (Re)reads the profiles: the New agent dialog asks each time it opens, so a CLI installed meanwhile shows up. */
  async loadProfiles(): Promise<readonly AgentProfileAvailability[]> {
    const profiles = await this.#client.call('agent.profiles', {});
    if (!this.store.isDisposed) this.profiles.set(profiles);
    return profiles;
  }

  startAgent(params: AgentStartInput): Promise<AgentStartResult> {
    return this.#client.call('agent.start', params);
  }

  /** The worktree an agent pane runs in, if Switchboard made one for it. */
  forTerminal(terminalId: string): WorktreeInfo | undefined {
    for (const info of this.worktrees.value.values()) if (info.terminalId === terminalId) return info;
    return undefined;
  }

  /** After a finish or a discard answered: apply the Hub's answer at once rather than wait for the event. */
  apply(info: WorktreeInfo): void {
    this.#upsert(info);
  }

  #setPanes(panes: readonly AgentPaneInfo[]): void {
    this.agentPanes.set(new Map(panes.map((pane) => [pane.terminalId, pane])));
  }

  #upsert(info: WorktreeInfo): void {
    const next = new Map(this.worktrees.value);
    next.set(info.path, info);
    this.worktrees.set(next);
  }

  #remove(path: string): void {
    if (!this.worktrees.value.has(path)) return;
    const next = new Map(this.worktrees.value);
    next.delete(path);
    this.worktrees.set(next);
    this.review.forget(path);
    if (this.changesShown.value === path) this.changesShown.set(null);
  }
}
