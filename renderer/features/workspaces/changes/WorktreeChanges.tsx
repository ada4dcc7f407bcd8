/**
 * A worktree's changes in the Review view (issue 20): what the agent changed against the base
 * (all of it, only its commits, or only what is uncommitted), file by file with the diff editor,
 * per-file and per-hunk Discard, edits saved into the worktree, line comments typed into the
 * agent's pane as one message, and Finish: merge into the base, keep the branch only, or discard.
 * Loaded lazily with CodeMirror (ReviewView).
 */
import { useEffect, useRef, useState } from 'react';
import type { DiffScope, FinishMode, WorktreeChangedFile, WorktreeInfo } from '../../../../src/common/api/workspaceContract.ts';
import { ControlConstants } from '../../../../src/common/constants.ts';
import { BranchIcon, CheckIcon, CloseIcon, TrashIcon, WarningIcon } from '../../../app/icons.tsx';
import { errorCode, errorMessage } from '../../../app/errorList.ts';
import { useObservable } from '../../../app/observable.ts';
import { useWorkbench } from '../../../app/WorkbenchContext.tsx';
import { SendIcon } from '../../review/reviewIcons.tsx';
import { commentsMessage, conflictFiles, finishConfirmation, finishSummary, nothingToMerge, plural, scopeDescriptions, scopeLabels, statusLetters, unmergedWorkText } from './changesFormat.ts';
import { WorktreeFileDiff } from './WorktreeFileDiff.tsx';
import type { LineComment } from './worktreeReviewState.ts';

const scopes: readonly DiffScope[] = ['all', 'committed', 'uncommitted'];

export function WorktreeChanges({ path }: { path: string }) {
  const workbench = useWorkbench();
  const info = useObservable(workbench.worktrees.worktrees).get(path);
  if (!info) {
    return (
      <article className="review-detail worktree-changes" aria-label="Worktree changes">
        <div className="review-withdrawn" role="status">
          <p className="empty-title">This worktree is gone</p>
          <p>It was finished or removed. Nothing more to review here.</p>
          <button type="button" className="secondary-button" onClick={() => workbench.worktrees.changesShown.set(null)}>
            Back to the review queue
          </button>
        </div>
      </article>
    );
  }
  return <WorktreePage info={info} />;
}

function WorktreePage({ info }: { info: WorktreeInfo }) {
  const workbench = useWorkbench();
  const state = workbench.worktrees.review;
  const scope = useObservable(state.scopes).get(info.path) ?? 'all';
  const selected = useObservable(state.selectedFiles).get(info.path) ?? null;
  const files = useScopeFiles(info, scope);
  const shownFile = files.list.find((file) => file.path === selected) ?? files.list[0] ?? null;
  const [composing, setComposing] = useState<{ file: string; line: number } | null>(null);
  const [finishProblem, setFinishProblem] = useState<FinishProblem | null>(null);

  return (
    <article className="review-detail worktree-changes" aria-label={`Changes of ${info.name}`} data-worktree-path={info.path}>
      <WorktreeHeader info={info} onProblem={setFinishProblem} />
      {finishProblem && <FinishProblemNotice problem={finishProblem} onDismiss={() => setFinishProblem(null)} />}
      {info.missing ? (
        <GoneWorktree info={info} />
      ) : (
        <>
          {info.error && (
            <div className="review-notice" data-tone="error" role="alert">
              <span>Could not read this worktree’s state: {info.error}</span>
            </div>
          )}
          <div className="worktree-body">
            <nav className="worktree-files" aria-label="Changed files">
              <div className="segmented worktree-scope" role="radiogroup" aria-label="Which changes">
                {scopes.map((entry) => (
                  <button
                    key={entry}
                    type="button"
                    role="radio"
                    className="segment"
                    aria-checked={scope === entry}
                    title={scopeDescriptions[entry]}
                    onClick={() => state.setScope(info.path, entry)}
                  >
                    {scopeLabels[entry]}
                  </button>
                ))}
              </div>
              {files.error && <p className="worktree-file-note">Could not list the files: {files.error}</p>}
              {files.list.length === 0 && !files.error ? (
                <p className="review-list-empty">{files.loading ? 'Reading…' : scope === 'all' ? 'No changes against the base yet.' : `No ${scopeLabels[scope].toLowerCase()} changes.`}</p>
              ) : (
                <ul className="worktree-file-list">
                  {files.list.map((file) => (
                    <li key={file.path}>
                      <FileRow file={file} selected={file.path === shownFile?.path} onSelect={() => selectFile(workbench, info.path, file.path)} />
                    </li>
                  ))}
                </ul>
              )}
              {info.filesTruncated && scope === 'all' && <p className="worktree-file-note">Only the first {files.list.length} files are listed.</p>}
            </nav>
            <div className="worktree-file-area">
              {shownFile ? (
                <WorktreeFileDiff key={`${scope}\0${shownFile.path}`} info={info} scope={scope} file={shownFile} onComment={(line) => setComposing({ file: shownFile.path, line })} />
              ) : (
                <div className="empty-state review-empty">
                  <p className="empty-title">Nothing to show</p>
                  <p>{scope === 'all' ? 'The agent has not changed any file in this worktree yet.' : 'Pick another scope above the file list.'}</p>
                </div>
              )}
            </div>
          </div>
          <CommentsBar info={info} composing={composing} onComposed={() => setComposing(null)} />
        </>
      )}
    </article>
  );
}

/** What the Hub says of a worktree whose folder and branch are both gone (WorkspaceService #info). */
export function branchGoneToo(info: WorktreeInfo): boolean {
  return info.missing && /and so is its branch/.test(info.error ?? '');
}

/**
 * A worktree whose folder was deleted outside Switchboard: nothing in it to diff, comment on or
 * merge — one state, saying what is left (its branch, if it is) and the two ways out, in the header.
 */
function GoneWorktree({ info }: { info: WorktreeInfo }) {
  const branchGone = branchGoneToo(info);
  return (
    <div className="empty-state review-empty worktree-gone" role="status">
      <p className="empty-title">This worktree’s folder is gone</p>
      <p>
        <code>{info.path}</code> was deleted outside Switchboard.{' '}
        {branchGone
          ? `Its branch ${info.branch} is gone too: Forget removes it from this list.`
          : `Its branch ${info.branch} is still there${info.ahead > 0 ? `, with ${plural(info.ahead, 'commit')} not on ${info.base}` : `, with nothing ${info.base} lacks`}: Keep branch forgets the worktree and leaves the branch, Discard deletes the branch too.`}
      </p>
    </div>
  );
}

/** Switching files drops unsaved edits of the one shown: asked first. */
function selectFile(workbench: ReturnType<typeof useWorkbench>, worktree: string, file: string): void {
  const state = workbench.worktrees.review;
  const dirty = document.querySelector('.worktree-file .review-edited-tag') !== null;
  if (!dirty) {
    state.selectFile(worktree, file);
    return;
  }
  workbench.confirm({
    title: 'Drop your edits?',
    message: 'The file shown has edits you have not saved. Showing another file drops them.',
    confirmLabel: 'Drop edits',
    onConfirm: () => state.selectFile(worktree, file),
  });
}

/** The files of the scope shown: from the worktree's info for `all`, read with `worktree.diff` for the others. */
function useScopeFiles(info: WorktreeInfo, scope: DiffScope): { list: readonly WorktreeChangedFile[]; loading: boolean; error: string | null } {
  const client = useWorkbench().client;
  const [read, setRead] = useState<{ key: string; list: readonly WorktreeChangedFile[]; error: string | null } | null>(null);
  const key = `${info.path}\0${scope}`;
  useEffect(() => {
    if (scope === 'all' || info.missing) return;
    let live = true;
    client.call('worktree.diff', { path: info.path, scope }).then(
      (diff) => live && setRead({ key, list: diff.files, error: null }),
      (error: unknown) => live && setRead({ key, list: [], error: errorMessage(error) }),
    );
    return () => {
      live = false;
    };
    // Read again whenever the worktree changed (a new info object).
  }, [client, info, scope, key]);
  if (scope === 'all') return { list: info.files, loading: false, error: null };
  if (!read || read.key !== key) return { list: [], loading: true, error: null };
  return { list: read.list, loading: false, error: read.error };
}

function FileRow({ file, selected, onSelect }: { file: WorktreeChangedFile; selected: boolean; onSelect(): void }) {
  const slash = file.path.lastIndexOf('/');
  const folder = slash >= 0 ? file.path.slice(0, slash + 1) : '';
  const name = file.path.slice(slash + 1);
  return (
    <button type="button" className="worktree-file-row" data-file={file.path} data-status={file.status} aria-current={selected || undefined} title={`${file.path} (${file.status}${file.uncommitted ? ', uncommitted' : ''})`} onClick={onSelect}>
      <span className="worktree-file-status" data-status={file.status} aria-label={file.status}>
        {statusLetters[file.status]}
      </span>
      <span className="worktree-file-row-name">
        {name}
        {folder && <span className="worktree-file-row-folder"> {folder}</span>}
      </span>
      {file.uncommitted && (
        <span className="worktree-uncommitted-mark" title="Not committed yet" aria-label="uncommitted">
          ●
        </span>
      )}
      <span className="review-item-stats">
        {file.binary ? (
          <span className="review-stat-binary">bin</span>
        ) : (
          <>
            <span className="review-stat-added">+{file.additions ?? 0}</span>
            <span className="review-stat-removed">−{file.deletions ?? 0}</span>
          </>
        )}
      </span>
    </button>
  );
}

// ---- header and finish ----------------------------------------------------------------------

type FinishProblem = { kind: 'conflict'; base: string; branch: string; files: string[]; message: string } | { kind: 'other'; title: string; message: string; code: string | null };

function WorktreeHeader({ info, onProblem }: { info: WorktreeInfo; onProblem(problem: FinishProblem | null): void }) {
  const workbench = useWorkbench();
  const [asking, setAsking] = useState<'merge' | 'branch' | null>(null);
  const [message, setMessage] = useState(info.name);
  const [finishing, setFinishing] = useState<FinishMode | null>(null);
  const uncommitted = info.uncommittedCount > 0;

  const terminals = useObservable(workbench.terminals);
  const unsubmitted = useObservable(workbench.worktrees.review.unsubmitted).get(info.path) ?? null;
  const paneInfo = info.terminalId ? terminals.get(info.terminalId) : undefined;
  const pane = paneInfo ? { name: paneInfo.name, running: paneInfo.state === 'running', agent: paneInfo.agent ?? null } : null;
  const empty = nothingToMerge(info);

  const finish = async (mode: FinishMode, confirm = false) => {
    // What the agent would lose when its pane closes is asked first (the Hub refuses a busy one too).
    const ask = confirm ? null : finishConfirmation({ mode, branch: info.branch, base: info.base, pane, unsubmitted, uncommittedCount: info.uncommittedCount, ahead: info.ahead });
    if (ask) {
      workbench.confirm({ ...ask, onConfirm: () => void finish(mode, true) });
      return;
    }
    setFinishing(mode);
    onProblem(null);
    try {
      const result = await workbench.client.call('worktree.finish', {
        path: info.path,
        mode,
        ...(mode !== 'discard' && message.trim() ? { message: message.trim() } : {}),
        ...(confirm ? { confirm: true } : {}),
      });
      setAsking(null);
      workbench.worktrees.review.showNotice('ok', finishSummary(result));
      workbench.worktrees.changesShown.set(null);
    } catch (error) {
      const code = errorCode(error);
      const text = errorMessage(error);
      if (code === 'BUSY' && !confirm) {
        // The agent started working or asking since this page last heard of it.
        workbench.confirm({
          title: `${mode === 'merge' ? `Merge ${info.branch}` : mode === 'branch' ? 'Keep only the branch' : `Discard ${info.branch}`} and close the agent’s pane?`,
          message: `${text.replace(/\. Send confirm: true.*$/s, '').replace(/^./, (first) => first.toUpperCase())}.`,
          confirmLabel: mode === 'merge' ? 'Merge anyway' : mode === 'branch' ? 'Keep branch anyway' : 'Discard anyway',
          onConfirm: () => void finish(mode, true),
        });
      } else if (mode === 'discard' && code === 'UNMERGED_WORK' && !confirm) {
        workbench.confirm({
          title: `Discard ${info.branch}?`,
          message: `Discarding removes the worktree and deletes the branch ${info.branch}. It would lose ${unmergedWorkText(text)}.`,
          confirmLabel: 'Discard anyway',
          onConfirm: () => void finish('discard', true),
        });
      } else if (code === 'MERGE_CONFLICT') {
        // The notice says it all; the form would push the diff out of a short window.
        setAsking(null);
        onProblem({ kind: 'conflict', base: info.base, branch: info.branch, files: conflictFiles(text), message: text });
      } else {
        const title = code === 'BASE_DIRTY' ? `${info.base} has uncommitted changes` : mode === 'merge' ? 'Could not merge' : mode === 'branch' ? 'Could not keep the branch' : 'Could not discard';
        if (code === 'BASE_DIRTY') setAsking(null);
        onProblem({ kind: 'other', title, message: text, code });
      }
    } finally {
      setFinishing(null);
    }
  };

  return (
    <>
      <header className="review-detail-header worktree-header">
        <div className="review-detail-titles">
          <h2 className="review-detail-title" title={info.path}>
            {info.name}
          </h2>
          <div className="review-detail-meta">
            <span className="worktree-branch" title={`${info.branch} was made from ${info.base}, and is merged into it`}>
              <BranchIcon width={13} height={13} /> <span className="worktree-branch-name">{info.branch}</span>
              <span className="worktree-branch-base">→ {info.base}</span>
            </span>
            {info.missing ? (
              <span className="worktree-counts worktree-gone-tag">folder gone{branchGoneToo(info) ? ', branch gone' : ''}</span>
            ) : (
              <>
                <span className="worktree-counts" title={`${info.ahead} commit(s) on ${info.branch} not on ${info.base}; ${info.behind} on ${info.base} since the worktree was made`}>
                  {info.ahead} ahead · {info.behind} behind
                </span>
                <span className="review-detail-stats" aria-label={`${info.additions} lines added, ${info.deletions} removed`}>
                  <span className="review-stat-added">+{info.additions}</span> <span className="review-stat-removed">−{info.deletions}</span>
                </span>
                <span className="worktree-counts">
                  {plural(info.files.length, 'file')}
                  {uncommitted ? ` · ${info.uncommittedCount} uncommitted` : ''}
                </span>
              </>
            )}
          </div>
        </div>
        <div className="review-detail-actions worktree-finish-actions" role="group" aria-label="Finish">
          {!info.missing && (
            <button
              type="button"
              className="primary-button worktree-merge"
              disabled={finishing !== null}
              aria-expanded={asking === 'merge'}
              title={`Commit what is uncommitted, merge ${info.branch} into ${info.base} (fast-forward when possible), then remove the worktree and the branch`}
              onClick={() => setAsking(asking === 'merge' ? null : 'merge')}
            >
              <CheckIcon width={14} height={14} /> Merge into {info.base}
            </button>
          )}
          {info.missing ? (
            !branchGoneToo(info) && (
              <button
                type="button"
                className="secondary-button worktree-keep-branch"
                disabled={finishing !== null}
                title={`Forget the worktree; the branch ${info.branch} stays, to merge or push later`}
                onClick={() => void finish('branch')}
              >
                {finishing === 'branch' ? 'Keeping…' : 'Keep branch'}
              </button>
            )
          ) : (
            <button
              type="button"
              className="secondary-button"
              disabled={finishing !== null}
              aria-expanded={asking === 'branch'}
              title={`Commit what is uncommitted and remove the worktree; the branch ${info.branch} stays`}
              onClick={() => setAsking(asking === 'branch' ? null : 'branch')}
            >
              Keep branch only
            </button>
          )}
          <button
            type="button"
            className="secondary-button worktree-discard"
            disabled={finishing !== null}
            title={branchGoneToo(info) ? 'Forget this worktree: its folder and its branch are gone already' : `Remove the worktree and delete the branch ${info.branch} (asks first when work would be lost)`}
            onClick={() => void finish('discard')}
          >
            <TrashIcon width={14} height={14} /> {finishing === 'discard' ? 'Discarding…' : branchGoneToo(info) ? 'Forget' : 'Discard'}
          </button>
          <button type="button" className="icon-button" aria-label="Back to the review queue" title="Back to the review queue" onClick={() => workbench.worktrees.changesShown.set(null)}>
            <CloseIcon />
          </button>
        </div>
      </header>
      {asking && (
        <form
          className="worktree-finish-form"
          aria-label={asking === 'merge' ? `Merge into ${info.base}` : 'Keep branch only'}
          onSubmit={(event) => {
            event.preventDefault();
            void finish(asking);
          }}
        >
          <label className="worktree-finish-message">
            <span>{uncommitted ? `Commit message for the ${plural(info.uncommittedCount, 'uncommitted file')}` : 'Commit message (used only if something is uncommitted)'}</span>
            <input type="text" value={message} maxLength={10_000} onChange={(event) => setMessage(event.target.value)} autoFocus />
          </label>
          <p className="worktree-finish-what">
            {asking === 'merge' && empty
              ? `Nothing to merge: ${info.branch} has no commit or change that ${info.base} lacks. This only removes the worktree and the branch.`
              : asking === 'merge'
                ? `${uncommitted ? 'Commits the uncommitted work, then m' : 'M'}erges ${info.branch} into ${info.base} — a fast-forward when possible, else a merge commit — and removes the worktree and the branch. A conflict stops it and changes nothing in ${info.base}.`
                : `${uncommitted ? 'Commits the uncommitted work, then r' : 'R'}emoves the worktree. The branch ${info.branch} stays, to merge or push later.`}
            {info.terminalId ? ' The agent’s pane is closed.' : ''}
          </p>
          <div className="dialog-actions">
            <button type="button" className="secondary-button" onClick={() => setAsking(null)}>
              Cancel
            </button>
            <button type="submit" className="primary-button" disabled={finishing !== null || !message.trim()}>
              {finishing
                ? asking === 'merge'
                  ? empty
                    ? 'Removing…'
                    : 'Merging…'
                  : 'Keeping…'
                : asking === 'merge'
                  ? empty
                    ? 'Remove worktree and branch'
                    : `Merge into ${info.base}`
                  : 'Keep branch, remove worktree'}
            </button>
          </div>
        </form>
      )}
    </>
  );
}

function FinishProblemNotice({ problem, onDismiss }: { problem: FinishProblem; onDismiss(): void }) {
  return (
    <div className="review-notice worktree-finish-problem" data-tone="error" role="alert">
      <WarningIcon width={14} height={14} />
      {problem.kind === 'conflict' ? (
        <span>
          <strong>Merging {problem.branch} into {problem.base} conflicts</strong>
          {problem.files.length > 0 ? ' in:' : `: ${problem.message}.`}
          {problem.files.length > 0 && (
            <ul className="worktree-conflict-files">
              {problem.files.map((file) => (
                <li key={file}>
                  <code>{file}</code>
                </li>
              ))}
            </ul>
          )}
          {' '}Nothing was merged: {problem.base} and the worktree are as they were. Resolve it in the worktree (or ask the agent to), then merge again.
        </span>
      ) : (
        <span>
          <strong>{problem.title}.</strong> {problem.message}
          {problem.code && <code className="toast-code">{problem.code}</code>}
        </span>
      )}
      <button type="button" className="icon-button" aria-label="Dismiss" title="Dismiss" onClick={onDismiss}>
        <CloseIcon />
      </button>
    </div>
  );
}

// ---- comments -------------------------------------------------------------------------------

function CommentsBar({ info, composing, onComposed }: { info: WorktreeInfo; composing: { file: string; line: number } | null; onComposed(): void }) {
  const workbench = useWorkbench();
  const state = workbench.worktrees.review;
  const comments = useObservable(state.comments).get(info.path) ?? [];
  const terminals = useObservable(workbench.terminals);
  const [draft, setDraft] = useState('');
  const [pressEnter, setPressEnter] = useState(false);
  const [open, setOpen] = useState(false);
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    if (composing) {
      setDraft('');
      inputRef.current?.focus();
    }
  }, [composing]);

  const pane = info.terminalId ? terminals.get(info.terminalId) : undefined;
  const paneRuns = pane !== undefined && pane.state === 'running';
  const disabledReason =
    comments.length === 0 ? 'Add a comment first: click the gutter left of a line, or Comment' : !paneRuns ? 'No agent pane runs in this worktree now: nowhere to type the comments' : null;

  const add = () => {
    if (!composing || !draft.trim()) return;
    state.addComment(info.path, composing.file, composing.line, draft);
    setDraft('');
    setSent(null);
    onComposed();
  };

  const send = async () => {
    if (!info.terminalId || disabledReason) return;
    setSending(true);
    setSent(null);
    const terminalId = info.terminalId;
    try {
      // Typed as the pane's program asks: one bracketed paste when it asked for them, else one line.
      await workbench.client.call('ide.sendToClaude', { terminalId, text: commentsMessage(comments) });
      if (pressEnter) {
        // Apart from the paste, as the Hub's own send does: an Ink prompt may take a CR inside a paste as text.
        await new Promise((resolve) => setTimeout(resolve, ControlConstants.pasteEnterDelayMs));
        await workbench.client.call('terminal.write', { id: terminalId, data: '\r' });
      }
      state.noteSent(info.path, { terminalId, count: comments.length, agentSince: pane?.agent?.since ?? null }, pressEnter);
      state.clearComments(info.path);
      setSent(`Sent ${plural(comments.length, 'comment')} to ${pane?.name ?? 'the agent'}${pressEnter ? '' : ' — press Enter there to submit them'}.`);
    } catch (error) {
      workbench.errors.report('Could not send the comments to the agent', error);
    } finally {
      setSending(false);
    }
  };

  return (
    <footer className="worktree-comments" aria-label="Comments for the agent">
      {open && comments.length > 0 && <CommentList comments={comments} onRemove={(id) => state.removeComment(info.path, id)} />}
      {composing ? (
        <form
          className="worktree-comment-form"
          onSubmit={(event) => {
            event.preventDefault();
            add();
          }}
        >
          <label className="worktree-comment-where" htmlFor="worktree-comment-input">
            {composing.file}:{composing.line}
          </label>
          <textarea
            id="worktree-comment-input"
            ref={inputRef}
            className="review-comment worktree-comment-input"
            aria-label={`Comment on ${composing.file} line ${composing.line}`}
            placeholder="What should the agent change here? (Enter adds, Shift+Enter for a new line)"
            rows={1}
            maxLength={4000}
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && !event.shiftKey) {
                event.preventDefault();
                add();
              } else if (event.key === 'Escape') {
                event.preventDefault();
                event.stopPropagation();
                onComposed();
              }
            }}
          />
          <button type="button" className="secondary-button" onClick={onComposed}>
            Cancel
          </button>
          <button type="submit" className="primary-button" disabled={!draft.trim()}>
            Add comment
          </button>
        </form>
      ) : (
        <div className="worktree-comments-bar">
          <button type="button" className="toolbar-button" aria-expanded={open} disabled={comments.length === 0} onClick={() => setOpen(!open)}>
            {comments.length === 0 ? 'No comments' : `${plural(comments.length, 'comment')} ${open ? '▾' : '▸'}`}
          </button>
          {sent && (
            <span className="worktree-sent" role="status" title={sent}>
              {sent}
            </span>
          )}
          <span className="review-toolbar-gap" />
          <label className="worktree-press-enter" title="Submit the message in the agent’s prompt after typing it">
            <input type="checkbox" checked={pressEnter} onChange={(event) => setPressEnter(event.target.checked)} /> and press Enter
          </label>
          <button type="button" className="primary-button worktree-send-comments" disabled={disabledReason !== null || sending} title={disabledReason ?? `Type every comment into ${pane?.name ?? 'the agent’s pane'} as one message`} onClick={() => void send()}>
            <SendIcon width={14} height={14} /> Send comments to agent
          </button>
        </div>
      )}
      {!composing && disabledReason && comments.length > 0 && <p className="worktree-comments-why">{disabledReason}</p>}
    </footer>
  );
}

function CommentList({ comments, onRemove }: { comments: readonly LineComment[]; onRemove(id: number): void }) {
  return (
    <ul className="worktree-comment-list" aria-label="Comments">
      {[...comments]
        .sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1))
        .map((comment) => (
          <li key={comment.id}>
            <code>
              {comment.file}:{comment.line}
            </code>
            <span>{comment.text}</span>
            <button type="button" className="icon-button small" aria-label={`Remove the comment on ${comment.file} line ${comment.line}`} title="Remove" onClick={() => onRemove(comment.id)}>
              <CloseIcon />
            </button>
          </li>
        ))}
    </ul>
  );
}
