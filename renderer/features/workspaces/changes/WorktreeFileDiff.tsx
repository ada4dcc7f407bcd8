/**
 * One file of a worktree's changes: its diff against the base (or the scope chosen) in the Review
 * view's diff editor, with git's hunks and a Discard button on each, Discard for the whole file,
 * the new side editable (Save writes the file in the worktree), and line comments in a gutter.
 * Read again when the worktree changes (`worktree.changed`); edits in progress are never replaced
 * behind the person's back.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import type { DiffHunk, DiffScope, WorktreeChangedFile, WorktreeDiffFile, WorktreeInfo } from '../../../../src/common/api/workspaceContract.ts';
import { TrashIcon, WarningIcon } from '../../../app/icons.tsx';
import { commandForEvent } from '../../../app/keybindings.ts';
import { errorMessage } from '../../../app/errorList.ts';
import { useObservable } from '../../../app/observable.ts';
import { useWorkbench } from '../../../app/WorkbenchContext.tsx';
import { DiffCaptions, DiffToolbar, useDiffEditor } from '../../review/DiffParts.tsx';
import { languageForPath } from '../../review/languages.ts';
import { ReviewDiffEditor } from '../../review/reviewDiffEditor.ts';
import { RejectIcon, SaveIcon } from '../../review/reviewIcons.tsx';
import { statusLetters } from './changesFormat.ts';
import { gitHunkHeaders } from './gitHunkHeaders.ts';
import { lineComments, setLineComments } from './lineComments.ts';

interface Loaded {
  file: WorktreeDiffFile | null;
  /** The file's diff could not be read (git's message). */
  error: string | null;
}

export interface WorktreeFileDiffProps {
  info: WorktreeInfo;
  scope: DiffScope;
  file: WorktreeChangedFile;
  /** Ask for a comment on 1-based `line` of this file (the composer is the page's). */
  onComment(line: number): void;
}

/** The worktree file's absolute path. */
export function worktreeFilePath(worktree: string, file: string): string {
  return `${worktree.replace(/\/+$/, '')}/${file}`;
}

function sameDiff(a: WorktreeDiffFile | null, b: WorktreeDiffFile | null): boolean {
  if (a === null || b === null) return a === b;
  return a.oldContents === b.oldContents && a.newContents === b.newContents && a.diff === b.diff && a.status === b.status;
}

export function WorktreeFileDiff({ info, scope, file, onComment }: WorktreeFileDiffProps) {
  const workbench = useWorkbench();
  const client = workbench.client;
  const state = workbench.worktrees.review;
  const comments = useObservable(state.comments).get(info.path);
  const fileComments = useMemo(() => (comments ?? []).filter((comment) => comment.file === file.path), [comments, file.path]);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  /** Bumped to make a new editor from what is loaded (Revert edits, after a Save). */
  const [generation, setGeneration] = useState(0);
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  /** The file changed on disk while the person had edits: kept, and said. */
  const [changedUnderEdits, setChangedUnderEdits] = useState<WorktreeDiffFile | null>(null);
  const editorRef = useRef<ReviewDiffEditor | null>(null);
  const loadedRef = useRef<Loaded | null>(null);
  loadedRef.current = loaded;
  const absolutePath = worktreeFilePath(info.path, file.path);
  const editable = scope !== 'committed' && file.status !== 'deleted' && !file.binary;

  const load = useCallback(
    async (replace: boolean) => {
      try {
        const diff = await client.call('worktree.diff', { path: info.path, scope, file: file.path });
        const next: Loaded = { file: diff.files.find((entry) => entry.path === file.path) ?? null, error: null };
        const current = loadedRef.current;
        if (!replace && current && sameDiff(current.file, next.file)) return;
        if (!replace && editorRef.current?.status().edited) {
          setChangedUnderEdits(next.file);
          return;
        }
        setChangedUnderEdits(null);
        setLoaded(next);
        setGeneration((value) => value + 1);
      } catch (error) {
        setLoaded({ file: null, error: errorMessage(error) });
      }
    },
    [client, info.path, scope, file.path],
  );

  // Read when shown, and again whenever the Hub says this worktree changed (the info object is new then).
  useEffect(() => {
    void load(false);
  }, [load, info]);

  const diffFile = loaded?.file ?? null;
  const textual = diffFile !== null && !diffFile.binary && diffFile.newContents !== undefined;

  const discardHunk = useCallback(
    async (hunk: DiffHunk) => {
      if (busy) return;
      setBusy('Discarding…');
      setProblem(null);
      try {
        const after = await client.call('worktree.discard', {
          path: info.path,
          file: file.path,
          hunk: hunk.text,
          scope: scope === 'uncommitted' ? 'uncommitted' : 'all',
        });
        workbench.worktrees.apply(after);
      } catch (error) {
        setProblem(`Could not discard that hunk: ${errorMessage(error)}`);
        void load(true);
      } finally {
        setBusy(null);
      }
    },
    [busy, client, info.path, file.path, scope, workbench, load],
  );
  const discardRef = useRef(discardHunk);
  discardRef.current = discardHunk;
  const commentRef = useRef(onComment);
  commentRef.current = onComment;

  const editor = useMemo(() => {
    if (!diffFile || !textual) return null;
    const canDiscard = scope !== 'committed';
    const created = new ReviewDiffEditor({
      original: diffFile.oldContents ?? '',
      proposed: diffFile.newContents ?? '',
      editable,
      partial: diffFile.status !== 'added' && diffFile.status !== 'deleted',
      mode: workbench.review.shownDiffMode.value,
      collapseUnchanged: workbench.review.collapseUnchanged.value,
      language: languageForPath(file.path),
      chunkHeaders: false,
      proposedLabel: editable ? 'Working tree contents' : 'New contents',
      extensions: {
        original: gitHunkHeaders({ side: 'a', hunks: diffFile.hunks, onDiscard: null }),
        proposed: [
          gitHunkHeaders({ side: 'b', hunks: diffFile.hunks, onDiscard: canDiscard ? (hunk) => void discardRef.current(hunk) : null }),
          lineComments({
            onAdd: (line) => commentRef.current(line),
            onRemove: (id) => state.removeComment(info.path, id),
          }),
        ],
      },
    });
    return created;
    // `generation` makes a new editor from the same data (Revert edits); the rest is read once per editor.
  }, [diffFile, textual, generation]);
  editorRef.current = editor;
  useEffect(() => () => editor?.dispose(), [editor]);

  // The comments of this file, drawn in the editor (again after its views are rebuilt).
  const commentsRef = useRef(fileComments);
  commentsRef.current = fileComments;
  useEffect(() => {
    if (!editor) return;
    const show = () => editor.proposedView.dispatch({ effects: setLineComments.of(commentsRef.current) });
    show();
    const subscription = editor.onDidBuildViews(show);
    return () => subscription.dispose();
  }, [editor, fileComments]);

  const { status, send, slotRef } = useDiffEditor(editor, absolutePath);
  const edited = status?.edited ?? false;

  const save = useCallback(async () => {
    const current = editorRef.current;
    const shown = loadedRef.current?.file;
    if (!current || !shown || !editable || busy) return;
    setBusy('Saving…');
    setProblem(null);
    try {
      // Only over the text the diff showed: an agent that wrote the file meanwhile is not overwritten.
      const onDisk = await client.call('editor.readFile', { path: absolutePath });
      if (onDisk.contents !== (shown.newContents ?? '')) {
        setProblem('The file changed on disk since it was shown (the agent may still be working): nothing was saved. Reload to see the new version.');
        return;
      }
      await client.call('editor.saveFile', { path: absolutePath, contents: current.proposedText(), expectedMtimeMs: onDisk.mtimeMs });
      await load(true);
    } catch (error) {
      setProblem(`Could not save ${file.path}: ${errorMessage(error)}`);
    } finally {
      setBusy(null);
    }
  }, [client, absolutePath, editable, busy, load, file.path]);

  const discardFile = () => {
    const what = scope === 'uncommitted' ? 'its last commit' : `${info.base} (the base)`;
    workbench.confirm({
      title: `Discard ${file.path}?`,
      message: `${file.path} goes back to how it is in ${what}${file.status === 'added' ? ': the new file is deleted' : ''}. The agent’s change to it is gone from the worktree; nothing is committed.`,
      confirmLabel: 'Discard file',
      onConfirm: () => {
        setBusy('Discarding…');
        setProblem(null);
        client
          .call('worktree.discard', { path: info.path, file: file.path, scope: scope === 'uncommitted' ? 'uncommitted' : 'all' })
          .then(
            (after) => workbench.worktrees.apply(after),
            (error: unknown) => setProblem(`Could not discard ${file.path}: ${errorMessage(error)}`),
          )
          .finally(() => setBusy(null));
      },
    });
  };

  const commentAtCursor = () => {
    if (!editor) return;
    const view = editor.proposedView;
    onComment(view.state.doc.lineAt(view.state.selection.main.head).number);
  };

  const onKeyDown = (event: ReactKeyboardEvent) => {
    if (commandForEvent(event.nativeEvent, 'fileTab') !== 'fileTab.save') return;
    event.preventDefault();
    event.stopPropagation();
    if (edited) void save();
  };

  return (
    <div className="worktree-file" data-file={file.path} onKeyDown={onKeyDown}>
      <div className="worktree-file-bar">
        <span className="worktree-file-status" data-status={file.status} title={file.status}>
          {statusLetters[file.status]}
        </span>
        <span className="worktree-file-name" title={absolutePath}>
          {file.oldPath && file.oldPath !== file.path && <span className="review-item-folder">{file.oldPath} → </span>}
          {file.path}
        </span>
        {busy && (
          <span className="worktree-busy" role="status">
            {busy}
          </span>
        )}
        <span className="review-toolbar-gap" />
        <button type="button" className="toolbar-button" disabled={!editor} title="Comment on the line with the cursor (or click the gutter left of a line)" onClick={commentAtCursor}>
          Comment
        </button>
        {editable && (
          <>
            <button
              type="button"
              className="toolbar-button"
              disabled={!edited || busy !== null}
              title={edited ? 'Undo your edits: show the file as it is on disk' : 'Nothing edited'}
              onClick={() => {
                setChangedUnderEdits(null);
                setGeneration((value) => value + 1);
              }}
            >
              <RejectIcon width={14} height={14} /> Revert edits
            </button>
            <button
              type="button"
              className="toolbar-button worktree-save"
              disabled={!edited || busy !== null}
              title={edited ? 'Write the file as shown into the worktree (Ctrl+S)' : 'Edit the working tree side, then save it here'}
              onClick={() => void save()}
            >
              <SaveIcon width={14} height={14} /> Save
            </button>
          </>
        )}
        {scope !== 'committed' && (
          <button
            type="button"
            className="toolbar-button worktree-discard-file"
            disabled={busy !== null}
            title={`Put ${file.path} back as it is in ${scope === 'uncommitted' ? 'the last commit' : info.base}`}
            onClick={discardFile}
          >
            <TrashIcon width={14} height={14} /> Discard file
          </button>
        )}
      </div>
      {problem && (
        <div className="review-notice" data-tone="error" role="alert">
          <WarningIcon width={14} height={14} />
          <span>{problem}</span>
          {problem.includes('Reload') && (
            <button type="button" className="secondary-button small-button" onClick={() => void load(true)}>
              Reload
            </button>
          )}
        </div>
      )}
      {changedUnderEdits !== null && (
        <div className="review-notice" data-tone="warning" role="status">
          <WarningIcon width={14} height={14} />
          <span>The file changed on disk while you were editing it. Your edits are kept; Save is refused until you reload.</span>
          <button type="button" className="secondary-button small-button" onClick={() => void load(true)}>
            Reload (drop my edits)
          </button>
        </div>
      )}
      {loaded?.error && (
        <div className="review-notice" data-tone="error" role="alert">
          <span>Could not read the diff of {file.path}: {loaded.error}</span>
        </div>
      )}
      {loaded && !loaded.error && diffFile === null && (
        <p className="worktree-file-note">{file.path} has no changes in this scope any more.</p>
      )}
      {diffFile?.binary && <p className="worktree-file-note">A binary file: it cannot be shown here. Discard file puts it back as it was.</p>}
      {diffFile && !diffFile.binary && !textual && <p className="worktree-file-note">This file is too large to show here ({diffFile.truncated ? 'its diff was cut' : 'its contents were not sent'}).</p>}
      {(loaded === null || textual) && (
        <>
          <DiffToolbar editor={editor} status={status} send={send} />
          <div className="review-diff-frame">
            <DiffCaptions
              status={status}
              original={scope === 'uncommitted' ? 'Last commit' : `Base — ${info.base}`}
              proposed={scope === 'committed' ? 'Last commit of the branch' : editable ? 'Working tree — editable: Save writes it' : 'Working tree'}
            />
            <div className="review-diff-slot" ref={slotRef} aria-busy={editor === null} />
          </div>
        </>
      )}
    </div>
  );
}
