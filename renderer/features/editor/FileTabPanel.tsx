/**
 * One file tab: the file in a CodeMirror editor (syntax highlighting, editable, Ctrl+S saves), its
 * toolbar (save, reload, Send to Claude), and what to do when the file changed on disk. Loaded
 * lazily with CodeMirror.
 */
import { useEffect, useRef, useState } from 'react';
import { RestartIcon, WarningIcon } from '../../app/icons.tsx';
import { keysFor } from '../../app/keybindings.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { languageForId, languageForPath, languageLabel } from '../review/languages.ts';
import { binaryLabel } from '../review/reviewFormat.ts';
import { BinaryIcon, SaveIcon } from '../review/reviewIcons.tsx';
import type { SendPayload } from '../review/reviewService.ts';
import { SendToClaudeButton } from '../review/SendToClaude.tsx';
import { FileEditor } from './fileEditor.ts';
import type { FileTab } from './fileTabs.ts';

export function FileTabPanel({ tabId }: { tabId: string }) {
  const workbench = useWorkbench();
  const files = workbench.review.files;
  const tab = useObservable(files.tabs).find((candidate) => candidate.id === tabId);
  if (!tab) return null;
  const path = workbench.review.displayPath(tab.path);

  return (
    <section className="file-panel" aria-label={`File ${path.text}`} data-file-path={tab.path}>
      {tab.status === 'loading' && <div className="review-loading" aria-busy="true" />}
      {tab.status === 'failed' && (
        <div className="review-notice" data-tone="error" role="alert">
          <WarningIcon width={14} height={14} />
          <span>
            Could not open {tab.path}: {tab.error}
          </span>
          <button type="button" className="banner-button" onClick={() => files.close(tab.id)}>
            Close tab
          </button>
        </div>
      )}
      {tab.status === 'ready' && tab.file && (tab.file.binary || tab.file.contents === null) && (
        <div className="review-binary" role="note">
          <BinaryIcon width={28} height={28} />
          <div>
            <p className="review-binary-title">{binaryLabel(tab.file.binary?.bytes ?? tab.file.size)}</p>
            <p className="review-binary-detail">{tab.path} is not text, so it cannot be shown or edited here.</p>
          </div>
        </div>
      )}
      {tab.status === 'ready' && tab.file && tab.file.contents !== null && !tab.file.binary && <TextFile tab={tab} contents={tab.file.contents} />}
    </section>
  );
}

function TextFile({ tab, contents }: { tab: FileTab; contents: string }) {
  const workbench = useWorkbench();
  const review = workbench.review;
  const files = review.files;
  const slotRef = useRef<HTMLDivElement>(null);
  const [editor, setEditor] = useState<FileEditor | null>(null);
  const [send, setSend] = useState<SendPayload>({ kind: 'file', path: tab.path });
  const language = languageForPath(tab.path) ?? (tab.file ? languageForId(tab.file.languageId) : null);
  const path = review.displayPath(tab.path);

  useEffect(() => {
    const slot = slotRef.current;
    if (!slot) return;
    // The editor outlives this panel (the tab keeps it while open), so switching tabs keeps edits and history.
    const existing = files.editorOf(tab.id);
    const fileEditor = existing instanceof FileEditor ? existing : new FileEditor({ contents, language });
    const mounted = fileEditor.mount(slot);
    const edits = fileEditor.onDidEdit((dirty) => files.noteEdited(tab.id, dirty));
    const selections = fileEditor.onDidChangeSelection((selection) => {
      const payload: SendPayload = selection.empty ? { kind: 'file', path: tab.path } : { kind: 'file', path: tab.path, lineStart: selection.lineStart, lineEnd: selection.lineEnd };
      setSend(payload);
      review.reportSelection({ source: 'file', path: tab.path, text: selection.text, range: selection.range }, payload);
    });
    if (fileEditor !== existing) files.attachEditor(tab.id, fileEditor);
    setEditor(fileEditor);
    return () => {
      selections.dispose();
      edits.dispose();
      mounted.dispose();
    };
    // `contents` and `language` only seed a new editor: later contents reach it through the model (reload, saves).
  }, [files, review, tab.id, tab.path]);

  return (
    <>
      <div className="file-toolbar" role="toolbar" aria-label="File">
        <span className="file-toolbar-path" title={tab.path}>
          {path.folder && <span className="review-item-folder">{path.folder} › </span>}
          {path.text}
        </span>
        {tab.file?.outsideWorkspace && (
          <span className="review-flag" title="This file is outside every workspace folder of the app">
            outside workspace
          </span>
        )}
        <span className="file-toolbar-language">{languageLabel(language)}</span>
        {tab.dirty && <span className="review-edited-tag">unsaved</span>}
        <span className="review-toolbar-gap" />
        <button type="button" className="toolbar-button" disabled={!tab.dirty || tab.saving || !editor} title={`Save (${keysFor('fileTab.save')})`} onClick={() => void files.save(tab.id)}>
          <SaveIcon width={14} height={14} /> {tab.saving ? 'Saving…' : 'Save'}
        </button>
        <button
          type="button"
          className="toolbar-button"
          title="Read the file from disk again (unsaved edits are lost)"
          onClick={() => {
            if (tab.dirty && !window.confirm('Reload the file from disk and lose your unsaved edits?')) return;
            void files.reload(tab.id);
          }}
        >
          <RestartIcon width={14} height={14} /> Reload
        </button>
        <span className="review-toolbar-divider" />
        <SendToClaudeButton payload={send} />
      </div>
      {tab.conflict && (
        <div className="review-notice" data-tone="warning" role="alert">
          <WarningIcon width={14} height={14} />
          <span>The file changed on disk since it was opened. Saving now would overwrite those changes.</span>
          <button type="button" className="banner-button" onClick={() => void files.save(tab.id, { overwrite: true })}>
            Overwrite
          </button>
          <button type="button" className="banner-button" onClick={() => void files.reload(tab.id)}>
            Reload from disk
          </button>
        </div>
      )}
      <div className="file-editor-slot" ref={slotRef} />
    </>
  );
}
