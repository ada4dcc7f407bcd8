/**
 * New agent (Ctrl+Shift+A, the tab bar's agent button): which agent CLI, in which repository, with
 * which task, and — inside a git repository, on by default — in a worktree of its own on a branch
 * named after the task. One step instead of open a pane, `cd`, `git worktree add`, type `claude`.
 * The dialog stays open until the agent's pane exists, so a refusal (a taken branch, a missing
 * CLI, a failing setup script) is said beside what was typed and can be corrected.
 */
import { useEffect, useId, useRef, useState } from 'react';
import type { AgentProfileAvailability, AgentStartInput } from '../../../src/common/api/workspaceContract.ts';
import { Dialog } from '../../app/Dialog.tsx';
import { errorCode, errorMessage } from '../../app/errorList.ts';
import { useObservable } from '../../app/observable.ts';
import { expandHome, shortenPath } from '../../app/paths.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { fieldForError, newAgentStart, type NewAgentField } from './newAgentForm.ts';
import './workspaces.css';

/** The profile last started from this browser: most people run one agent CLI. */
const lastProfileKey = 'switchboard.newAgent.profile';
/** Branch suggestions follow the task as it is typed, once typing pauses. */
const suggestDelayMs = 250;

interface Suggestion {
  folder: string;
  branch: string;
  base: string | null;
  isRepository: boolean;
  reason: string | null;
}

export function NewAgentDialog() {
  const workbench = useWorkbench();
  const terminals = useObservable(workbench.terminals);
  const profiles = useObservable(workbench.worktrees.profiles);
  const { workspaceFolders, homeDir } = workbench.appState;
  const ids = { profile: useId(), folder: useId(), folders: useId(), task: useId(), branch: useId(), error: useId() };

  const focused = workbench.focusedTerminalId ? terminals.get(workbench.focusedTerminalId) : undefined;
  // From an agent's worktree: its repository and base, not a branch on top of the other agent's.
  const [start] = useState(() => newAgentStart(focused?.cwd, workspaceFolders[0] ?? homeDir ?? '', workbench.worktrees.worktrees.value.values()));
  const [folder, setFolder] = useState(() => shortenPath(start.folder, homeDir));
  const [profileId, setProfileId] = useState<string | null>(null);
  const [task, setTask] = useState('');
  const [useWorktree, setUseWorktree] = useState(true);
  const [branch, setBranch] = useState('');
  const branchEdited = useRef(false);
  const [suggestion, setSuggestion] = useState<Suggestion | null>(null);
  const [error, setError] = useState<{ text: string; field: NewAgentField } | null>(null);
  const [starting, setStarting] = useState(false);
  const fields = {
    profile: useRef<HTMLSelectElement>(null),
    folder: useRef<HTMLInputElement>(null),
    task: useRef<HTMLTextAreaElement>(null),
    branch: useRef<HTMLInputElement>(null),
  };
  const folderSuggestions = [...new Set([...workspaceFolders, ...[...terminals.values()].map((info) => info.cwd)])];

  // Asked each time the dialog opens: a CLI installed since shows up.
  useEffect(() => {
    workbench.worktrees.loadProfiles().then(
      (loaded) => setProfileId((current) => current ?? pickProfile(loaded)),
      (failure: unknown) => setError({ text: `Could not list the agent profiles: ${errorMessage(failure)}`, field: 'profile' }),
    );
  }, [workbench]);

  // Whether the folder is a git repository, and the branch the task would get.
  const absoluteFolder = expandHome(folder.trim(), homeDir);
  useEffect(() => {
    if (!absoluteFolder.startsWith('/')) {
      setSuggestion(null);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      workbench.client.call('worktree.suggestBranch', { folder: absoluteFolder, task: task || 'agent' }).then(
        (answer) => {
          if (!current) return;
          setSuggestion({ folder: absoluteFolder, ...answer });
          if (!branchEdited.current) setBranch(answer.branch);
        },
        (failure: unknown) => current && setSuggestion({ folder: absoluteFolder, branch: '', base: null, isRepository: false, reason: errorMessage(failure) }),
      );
    }, suggestDelayMs);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [workbench, absoluteFolder, task]);

  const profile = profiles?.find((entry) => entry.profile.id === profileId) ?? null;
  const isRepository = suggestion?.folder === absoluteFolder && suggestion.isRepository;
  const worktreeOn = useWorktree && isRepository;
  // The base the dialog names: the agent's worktree's base while its repository is the folder, else what is checked out there.
  const base = start.base !== null && absoluteFolder === start.folder ? start.base : (suggestion?.base ?? null);
  const promptIgnored = profile !== null && profile.profile.prompt.kind === 'none' && task.trim() !== '';

  const submit = async () => {
    if (!profile || !profile.installed || starting) return;
    const params: AgentStartInput = { profile: profile.profile.id, folder: absoluteFolder };
    if (task.trim()) params.prompt = task.trim();
    // The fields are disabled while it starts, which would drop the keyboard on <body> (and
    // Escape with it): the dialog holds it meanwhile.
    const dialog = document.activeElement?.closest<HTMLElement>('[role="dialog"]');
    setStarting(true);
    setError(null);
    dialog?.focus();
    let inWorktree = worktreeOn;
    try {
      // Start pressed before the folder was looked at (it is, once typing pauses): look now, so
      // a repository still gets the worktree the dialog is about to offer.
      let checked: Pick<Suggestion, 'base' | 'isRepository'> | null = suggestion?.folder === absoluteFolder ? suggestion : null;
      if (!checked) checked = await workbench.client.call('worktree.suggestBranch', { folder: absoluteFolder, task: task || 'agent' });
      inWorktree = useWorktree && checked.isRepository;
      const from = start.base !== null && absoluteFolder === start.folder ? start.base : checked.base;
      // From the branch the dialog said ("Branch, from main"), even if the checkout switched since.
      // A branch the person did not type is the Hub's to derive from the task as it is now: the
      // suggestion shown lags the typing (suggestDelayMs), and Start can come before it catches up.
      const typedBranch = branchEdited.current ? branch.trim() : '';
      if (inWorktree) params.worktree = { ...(typedBranch ? { branch: typedBranch } : {}), ...(from ? { base: from } : {}) };
      await workbench.startAgent(params);
      rememberProfile(profile.profile.id);
      workbench.dialog.set(null);
    } catch (failure) {
      const text = errorMessage(failure);
      setError({ text, field: fieldForError(errorCode(failure), text, inWorktree) });
      setStarting(false);
    }
  };

  // A refusal gives the keyboard back to the field it is about, once the fields are enabled again.
  useEffect(() => {
    if (starting || !error) return;
    const field = fields[error.field].current ?? fields.task.current;
    field?.focus();
    if (field instanceof HTMLInputElement) field.select();
    // Only when a refusal arrives or the fields come back, not on each render (the refs are stable).
  }, [error, starting]);
  const invalid = (field: NewAgentField) => (error?.field === field ? { 'aria-invalid': true, 'aria-describedby': ids.error } : {});

  return (
    <Dialog title="New agent" onClose={() => workbench.closeDialog()} wide>
      <form
        className="dialog-form new-agent"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <label className="field" htmlFor={ids.profile}>
          <span className="field-label">Agent</span>
          <select ref={fields.profile} id={ids.profile} {...invalid('profile')} value={profileId ?? ''} disabled={starting || profiles === null} onChange={(event) => setProfileId(event.target.value)}>
            {profiles === null && <option value="">Looking for agent CLIs…</option>}
            {profiles?.map((entry) => (
              <option key={entry.profile.id} value={entry.profile.id} disabled={!entry.installed}>
                {entry.profile.name}
                {entry.installed ? '' : ` — not installed (looked for ${entry.command})`}
              </option>
            ))}
          </select>
          {profile && !profile.installed && (
            <span className="field-hint" role="note">
              {profile.profile.name} is not installed: {profile.reason ?? `looked for ${profile.command}`}.
            </span>
          )}
        </label>

        <label className="field" htmlFor={ids.folder}>
          <span className="field-label">Repository or folder</span>
          <input
            ref={fields.folder}
            id={ids.folder}
            {...invalid('folder')}
            spellCheck={false}
            autoComplete="off"
            list={ids.folders}
            value={folder}
            disabled={starting}
            placeholder={workspaceFolders[0] ?? '/path/to/repository'}
            onChange={(event) => setFolder(event.target.value)}
          />
          <datalist id={ids.folders}>
            {folderSuggestions.map((path) => (
              <option key={path} value={shortenPath(path, homeDir)} />
            ))}
          </datalist>
        </label>

        <label className="field" htmlFor={ids.task}>
          <span className="field-label">Task (optional: its first prompt, and the name of its pane and branch)</span>
          <textarea
            ref={fields.task}
            id={ids.task}
            {...invalid('task')}
            className="new-agent-task"
            rows={3}
            autoFocus
            value={task}
            disabled={starting}
            placeholder="Fix the login timeout on slow networks"
            onChange={(event) => setTask(event.target.value)}
            onKeyDown={(event) => {
              // Enter starts, as in the other dialogs; Shift+Enter is a new line of the task.
              if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
                event.preventDefault();
                event.currentTarget.form?.requestSubmit();
              }
            }}
          />
          {promptIgnored && <span className="field-hint">{profile?.profile.name} cannot start with a prompt: the task names its pane and branch; type it to the agent once it is up.</span>}
        </label>

        <fieldset className="new-agent-worktree" disabled={starting}>
          <label className="new-agent-check">
            <input type="checkbox" checked={worktreeOn} disabled={!isRepository} onChange={(event) => setUseWorktree(event.target.checked)} />
            <span>Work in a new git worktree</span>
          </label>
          {worktreeOn ? (
            <label className="field" htmlFor={ids.branch}>
              <span className="field-label">Branch{base ? `, from ${base}` : ''}</span>
              <input
                ref={fields.branch}
                id={ids.branch}
                {...invalid('branch')}
                spellCheck={false}
                autoComplete="off"
                value={branch}
                onChange={(event) => {
                  branchEdited.current = event.target.value.trim() !== '';
                  setBranch(event.target.value);
                }}
              />
            </label>
          ) : (
            <p className="field-hint">
              {suggestion === null || suggestion.folder !== absoluteFolder
                ? 'Checking the folder…'
                : isRepository
                  ? 'The agent works in the folder itself, on its current branch.'
                  : `${suggestion.reason ?? 'Not a git repository'}: the agent works in the folder itself.`}
            </p>
          )}
        </fieldset>

        {error && (
          <p id={ids.error} className="field-error" role="alert">
            {error.text}
          </p>
        )}
        <div className="dialog-actions">
          {starting && (
            <span className="new-agent-progress" role="status">
              {worktreeOn ? 'Making the worktree, then starting the agent…' : 'Starting the agent…'}
            </span>
          )}
          <button type="button" className="secondary-button" onClick={() => workbench.closeDialog()}>
            Cancel
          </button>
          <button type="submit" className="primary-button" disabled={starting || !profile?.installed || !absoluteFolder.startsWith('/')}>
            Start agent
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The last profile started here if it is installed, else Claude Code, else the first installed one. */
function pickProfile(profiles: readonly AgentProfileAvailability[]): string | null {
  const installed = profiles.filter((entry) => entry.installed);
  let last: string | null = null;
  try {
    last = globalThis.localStorage?.getItem(lastProfileKey) ?? null;
  } catch {
    // Storage may be unavailable (a locked-down browser): no memory then.
  }
  return (installed.find((entry) => entry.profile.id === last) ?? installed.find((entry) => entry.profile.kind === 'claude-code') ?? installed[0] ?? profiles[0])?.profile.id ?? null;
}

function rememberProfile(id: string): void {
  try {
    globalThis.localStorage?.setItem(lastProfileKey, id);
  } catch {
    // Not remembered: the next dialog picks the default again.
  }
}
