/**
 * What the Review view keeps per worktree while the window is open (issue 20): the line comments a
 * person wrote for the agent (they survive switching files and worktrees, until sent or the
 * worktree is finished), which scope and file were shown, and the last finish's outcome for the
 * status line over the review queue. No CodeMirror here: it is loaded with the changes page.
 */
import type { DiffScope } from '../../../../src/common/api/workspaceContract.ts';
import { Disposable } from '../../../../src/common/lifecycle.ts';
import { ObservableValue } from '../../../app/observable.ts';
import type { UnsubmittedComments } from './changesFormat.ts';

export interface LineComment {
  readonly id: number;
  /** Relative to the worktree, as `worktree.diff` names it. */
  readonly file: string;
  /** 1-based line of the file as the diff's new side shows it. */
  readonly line: number;
  readonly text: string;
}

/** A line over the review queue saying how a finish went (or why it did not). */
export interface FinishNotice {
  readonly id: number;
  readonly tone: 'ok' | 'error';
  readonly text: string;
}

export class WorktreeReviewState extends Disposable {
  /** Comments by worktree path, in the order they were written. */
  readonly comments = this.register(new ObservableValue<ReadonlyMap<string, readonly LineComment[]>>(new Map()));
  /** Scope chosen per worktree (default `all`). */
  readonly scopes = this.register(new ObservableValue<ReadonlyMap<string, DiffScope>>(new Map()));
  /** File shown per worktree. */
  readonly selectedFiles = this.register(new ObservableValue<ReadonlyMap<string, string>>(new Map()));
  readonly notice = this.register(new ObservableValue<FinishNotice | null>(null));
  /** Comments sent without "and press Enter": typed into the agent's prompt, not submitted (finishing asks first). */
  readonly unsubmitted = this.register(new ObservableValue<ReadonlyMap<string, UnsubmittedComments>>(new Map()));
  /**
   * When the person last asked for a worktree's changes (performance.now()): the Review view shows
   * them until a review is picked after that (ReviewService.lastSelectAt).
   */
  shownAt = 0;
  #nextId = 1;

  commentsOf(worktree: string): readonly LineComment[] {
    return this.comments.value.get(worktree) ?? [];
  }

  addComment(worktree: string, file: string, line: number, text: string): void {
    const trimmed = text.trim();
    if (!trimmed) return;
    const comment: LineComment = { id: this.#nextId++, file, line, text: trimmed };
    this.#setComments(worktree, [...this.commentsOf(worktree), comment]);
  }

  removeComment(worktree: string, id: number): void {
    this.#setComments(
      worktree,
      this.commentsOf(worktree).filter((comment) => comment.id !== id),
    );
  }

  clearComments(worktree: string): void {
    this.#setComments(worktree, []);
  }

  /** Comments were typed into the agent's prompt; `submitted`: Enter was pressed too (nothing waits there). */
  noteSent(worktree: string, sent: UnsubmittedComments, submitted: boolean): void {
    const next = new Map(this.unsubmitted.value);
    const before = next.get(worktree);
    if (submitted) next.delete(worktree);
    // Sent again before the agent moved: both messages stand in its prompt.
    else next.set(worktree, before && before.terminalId === sent.terminalId && before.agentSince === sent.agentSince ? { ...sent, count: before.count + sent.count } : sent);
    this.unsubmitted.set(next);
  }

  scopeOf(worktree: string): DiffScope {
    return this.scopes.value.get(worktree) ?? 'all';
  }

  setScope(worktree: string, scope: DiffScope): void {
    this.scopes.set(new Map(this.scopes.value).set(worktree, scope));
  }

  selectFile(worktree: string, file: string | null): void {
    if ((this.selectedFiles.value.get(worktree) ?? null) === file) return;
    const next = new Map(this.selectedFiles.value);
    if (file === null) next.delete(worktree);
    else next.set(worktree, file);
    this.selectedFiles.set(next);
  }

  showNotice(tone: FinishNotice['tone'], text: string): void {
    this.notice.set({ id: this.#nextId++, tone, text });
  }

  /** The worktree was finished or its record dropped: nothing of it is kept. */
  forget(worktree: string): void {
    if (this.comments.value.has(worktree)) {
      const next = new Map(this.comments.value);
      next.delete(worktree);
      this.comments.set(next);
    }
    if (this.scopes.value.has(worktree)) {
      const next = new Map(this.scopes.value);
      next.delete(worktree);
      this.scopes.set(next);
    }
    if (this.unsubmitted.value.has(worktree)) {
      const next = new Map(this.unsubmitted.value);
      next.delete(worktree);
      this.unsubmitted.set(next);
    }
    this.selectFile(worktree, null);
  }

  #setComments(worktree: string, list: readonly LineComment[]): void {
    const next = new Map(this.comments.value);
    if (list.length === 0) next.delete(worktree);
    else next.set(worktree, list);
    this.comments.set(next);
  }
}
