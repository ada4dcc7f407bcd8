/**
 * Settings → Agent profiles: the agent CLIs New agent can start, whether each is installed (with
 * the command that was looked for), and the person's own profiles. A built-in profile is changed
 * by an override of the same id in the `agentProfiles` setting (Reset drops it); a custom one is
 * added, edited and deleted. Claude Code's "Review edits in Switchboard" is a switch on its row.
 */
import { useEffect, useId, useState } from 'react';
import type { Settings } from '../../../src/common/api/contract.ts';
import { type AgentProfile, type AgentProfileAvailability, AgentProfileSetting } from '../../../src/common/api/workspaceContract.ts';
import { errorMessage } from '../../app/errorList.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import './workspaces.css';

type Editing = { kind: 'new' } | { kind: 'edit'; profile: AgentProfile } | null;

export function AgentProfilesSection({ settings }: { settings: Settings }) {
  const workbench = useWorkbench();
  const profiles = useObservable(workbench.worktrees.profiles);
  const [editing, setEditing] = useState<Editing>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  // Read again whenever the stored profiles change: availability depends on the command.
  useEffect(() => {
    workbench.worktrees.loadProfiles().then(
      () => setLoadError(null),
      (failure: unknown) => setLoadError(errorMessage(failure)),
    );
  }, [workbench, settings.agentProfiles]);

  // Row actions report a failure as the other settings do; the form says it beside its fields.
  const save = (next: AgentProfileSetting[]) => void workbench.updateSettings({ agentProfiles: next });
  const saveFromForm = async (next: AgentProfileSetting[]) => workbench.settings.set(await workbench.client.call('settings.update', { agentProfiles: next }));
  const stored = settings.agentProfiles;
  const without = (id: string) => stored.filter((entry) => entry.id !== id);

  return (
    <section className="settings-section" aria-labelledby="settings-agent-profiles">
      <h2 id="settings-agent-profiles">Agent profiles</h2>
      <p className="setting-help agent-profiles-intro">
        The agent CLIs <strong>New agent</strong> (Ctrl+Shift+A) starts. A profile says which program to run, with which arguments and environment, how a first prompt
        reaches it and how it is resumed after a restart.
      </p>
      {loadError && (
        <p className="setting-error" role="alert">
          Could not list the profiles: {loadError}
        </p>
      )}
      <ul className="agent-profile-list" aria-label="Agent profiles">
        {profiles?.map((entry) => (
          <ProfileRow
            key={entry.profile.id}
            entry={entry}
            onEdit={() => setEditing({ kind: 'edit', profile: entry.profile })}
            onReset={() => save(without(entry.profile.id))}
            onDelete={() => save(without(entry.profile.id))}
            onReviewEdits={(on) => save([...without(entry.profile.id), { ...settingOf(entry.profile), reviewEditsInSwitchboard: on }])}
          />
        ))}
      </ul>
      {editing ? (
        <ProfileForm
          key={editing.kind === 'edit' ? editing.profile.id : 'new'}
          profile={editing.kind === 'edit' ? editing.profile : null}
          takenIds={new Set(profiles?.map((entry) => entry.profile.id) ?? [])}
          onCancel={() => setEditing(null)}
          onSave={async (setting) => {
            await saveFromForm([...without(setting.id), setting]);
            setEditing(null);
          }}
        />
      ) : (
        <div className="agent-profile-actions">
          <button type="button" className="secondary-button" onClick={() => setEditing({ kind: 'new' })}>
            Add a profile…
          </button>
        </div>
      )}
    </section>
  );
}

function ProfileRow({
  entry,
  onEdit,
  onReset,
  onDelete,
  onReviewEdits,
}: {
  entry: AgentProfileAvailability;
  onEdit(): void;
  onReset(): void;
  onDelete(): void;
  onReviewEdits(on: boolean): void;
}) {
  const { profile } = entry;
  const switchId = useId();
  // The switch moves at once; the profile list catches up when the Hub has stored the change.
  const [pendingReview, setPendingReview] = useState<boolean | null>(null);
  useEffect(() => setPendingReview(null), [profile.reviewEditsInSwitchboard]);
  return (
    <li className="agent-profile" data-profile={profile.id} data-installed={entry.installed}>
      <div className="agent-profile-text">
        <span className="agent-profile-name">
          {profile.name}
          <span className="agent-profile-tag">{profile.builtIn ? (profile.overridden ? 'built in · changed' : 'built in') : 'yours'}</span>
        </span>
        <code className="agent-profile-command">{[profile.command, ...profile.args].join(' ')}</code>
        <span className="agent-profile-status" data-installed={entry.installed}>
          {entry.installed ? `installed: ${entry.resolvedPath}` : `not installed: looked for ${entry.command}${entry.reason ? ` — ${entry.reason}` : ''}`}
        </span>
        {profile.kind === 'claude-code' && (
          <label className="agent-profile-review" htmlFor={switchId}>
            <input
              id={switchId}
              type="checkbox"
              className="switch"
              checked={pendingReview ?? profile.reviewEditsInSwitchboard}
              onChange={(event) => {
                setPendingReview(event.target.checked);
                onReviewEdits(event.target.checked);
              }}
            />
            <span>
              Review edits in Switchboard <span className="setting-help">(starts it asking, with --permission-mode default; in auto mode its edits never reach Review)</span>
            </span>
          </label>
        )}
      </div>
      <div className="agent-profile-buttons">
        <button type="button" className="secondary-button" onClick={onEdit} aria-label={`Edit ${profile.name}`}>
          Edit
        </button>
        {profile.builtIn && profile.overridden && (
          <button type="button" className="secondary-button" onClick={onReset} aria-label={`Reset ${profile.name}`}>
            Reset
          </button>
        )}
        {!profile.builtIn && (
          <button type="button" className="secondary-button danger" onClick={onDelete} aria-label={`Delete ${profile.name}`}>
            Delete
          </button>
        )}
      </div>
    </li>
  );
}

type PromptWay = 'argument' | 'flag' | 'none';
type ResumeWay = 'none' | 'session' | 'args';

/** The form's fields: text a person edits, turned into a setting only on Save. */
interface Draft {
  id: string;
  name: string;
  command: string;
  args: string;
  env: string;
  prompt: PromptWay;
  promptFlag: string;
  resume: ResumeWay;
  startArgs: string;
  resumeArgs: string;
}

function draftOf(profile: AgentProfile | null): Draft {
  return {
    id: profile?.id ?? '',
    name: profile?.name ?? '',
    command: profile?.command ?? '',
    args: profile?.args.join('\n') ?? '',
    env: Object.entries(profile?.env ?? {})
      .map(([key, value]) => `${key}=${value}`)
      .join('\n'),
    prompt: profile?.prompt.kind ?? 'argument',
    promptFlag: profile?.prompt.kind === 'flag' ? profile.prompt.flag : '',
    resume: profile?.resume.kind ?? 'none',
    startArgs: profile?.resume.kind === 'session' ? profile.resume.startArgs.join('\n') : '--session-id\n{sessionId}',
    resumeArgs: profile?.resume.kind === 'session' || profile?.resume.kind === 'args' ? profile.resume.resumeArgs.join('\n') : '',
  };
}

/** One argument per line: arguments may hold spaces, and no shell quoting is involved. */
const lines = (text: string) => text.split('\n').map((line) => line.trim()).filter((line) => line !== '');

function settingFromDraft(draft: Draft, base: AgentProfile | null): { setting: AgentProfileSetting } | { error: string } {
  const env: Record<string, string> = {};
  for (const line of lines(draft.env)) {
    const equals = line.indexOf('=');
    if (equals <= 0) return { error: `Environment: "${line}" is not NAME=value.` };
    env[line.slice(0, equals)] = line.slice(equals + 1);
  }
  const candidate = {
    id: draft.id.trim(),
    name: draft.name.trim(),
    kind: base?.kind ?? 'custom',
    command: draft.command.trim(),
    args: lines(draft.args),
    env,
    prompt: draft.prompt === 'flag' ? { kind: 'flag', flag: draft.promptFlag.trim() } : { kind: draft.prompt },
    resume:
      draft.resume === 'session'
        ? { kind: 'session', startArgs: lines(draft.startArgs), resumeArgs: lines(draft.resumeArgs) }
        : draft.resume === 'args'
          ? { kind: 'args', resumeArgs: lines(draft.resumeArgs) }
          : { kind: 'none' },
    reviewEditsInSwitchboard: base?.reviewEditsInSwitchboard ?? true,
  };
  const parsed = AgentProfileSetting.safeParse(candidate);
  if (parsed.success) return { setting: parsed.data };
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map(String).join(' ');
  return { error: `${fieldNames[field] ?? field}: ${issue.message}` };
}

const fieldNames: Record<string, string> = {
  id: 'Id',
  name: 'Name',
  command: 'Command',
  'prompt flag': 'Prompt flag',
  'resume startArgs': 'Start arguments',
  'resume resumeArgs': 'Resume arguments',
};

function ProfileForm({
  profile,
  takenIds,
  onCancel,
  onSave,
}: {
  profile: AgentProfile | null;
  takenIds: ReadonlySet<string>;
  onCancel(): void;
  onSave(setting: AgentProfileSetting): Promise<void>;
}) {
  const [draft, setDraft] = useState(() => draftOf(profile));
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const set = (change: Partial<Draft>) => {
    setDraft((current) => ({ ...current, ...change }));
    setError(null);
  };
  const ids = { id: useId(), name: useId(), command: useId(), args: useId(), env: useId(), prompt: useId(), flag: useId(), resume: useId(), start: useId(), resumeArgs: useId() };

  const submit = async () => {
    const result = settingFromDraft(draft, profile);
    if ('error' in result) return setError(result.error);
    if (!profile && takenIds.has(result.setting.id)) return setError(`Id: "${result.setting.id}" is taken; pick another.`);
    setSaving(true);
    try {
      await onSave(result.setting);
    } catch (failure) {
      setError(errorMessage(failure));
      setSaving(false);
    }
  };

  return (
    <form
      className="agent-profile-form"
      aria-label={profile ? `Edit ${profile.name}` : 'New profile'}
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <div className="agent-profile-form-grid">
        <label className="field" htmlFor={ids.id}>
          <span className="field-label">Id</span>
          <input id={ids.id} value={draft.id} disabled={profile !== null} spellCheck={false} placeholder="my-agent" onChange={(event) => set({ id: event.target.value })} />
        </label>
        <label className="field" htmlFor={ids.name}>
          <span className="field-label">Name</span>
          <input id={ids.name} value={draft.name} placeholder="My agent" onChange={(event) => set({ name: event.target.value })} />
        </label>
        <label className="field agent-profile-wide" htmlFor={ids.command}>
          <span className="field-label">Command (a program on PATH, or an absolute path; no shell)</span>
          <input id={ids.command} value={draft.command} spellCheck={false} placeholder="my-agent-cli" onChange={(event) => set({ command: event.target.value })} />
        </label>
        <label className="field" htmlFor={ids.args}>
          <span className="field-label">Arguments (one per line)</span>
          <textarea id={ids.args} rows={3} value={draft.args} spellCheck={false} onChange={(event) => set({ args: event.target.value })} />
        </label>
        <label className="field" htmlFor={ids.env}>
          <span className="field-label">Environment (NAME=value per line; stored in plain text)</span>
          <textarea id={ids.env} rows={3} value={draft.env} spellCheck={false} onChange={(event) => set({ env: event.target.value })} />
        </label>
        <label className="field" htmlFor={ids.prompt}>
          <span className="field-label">First prompt (the task)</span>
          <select id={ids.prompt} value={draft.prompt} onChange={(event) => set({ prompt: event.target.value as PromptWay })}>
            <option value="argument">as the last argument</option>
            <option value="flag">after a flag</option>
            <option value="none">not passed (the CLI cannot start with one)</option>
          </select>
        </label>
        {draft.prompt === 'flag' ? (
          <label className="field" htmlFor={ids.flag}>
            <span className="field-label">Prompt flag</span>
            <input id={ids.flag} value={draft.promptFlag} spellCheck={false} placeholder="--prompt" onChange={(event) => set({ promptFlag: event.target.value })} />
          </label>
        ) : (
          <span />
        )}
        <label className="field" htmlFor={ids.resume}>
          <span className="field-label">After a restart</span>
          <select id={ids.resume} value={draft.resume} onChange={(event) => set({ resume: event.target.value as ResumeWay })}>
            <option value="none">cannot resume: show its last screen and Start again</option>
            <option value="session">resume the session Switchboard named ({'{sessionId}'})</option>
            <option value="args">resume with these arguments (the CLI&apos;s latest session)</option>
          </select>
        </label>
        <span />
        {draft.resume === 'session' && (
          <label className="field" htmlFor={ids.start}>
            <span className="field-label">Start arguments (one per line)</span>
            <textarea id={ids.start} rows={2} value={draft.startArgs} spellCheck={false} onChange={(event) => set({ startArgs: event.target.value })} />
          </label>
        )}
        {draft.resume !== 'none' && (
          <label className="field" htmlFor={ids.resumeArgs}>
            <span className="field-label">Resume arguments (one per line)</span>
            <textarea id={ids.resumeArgs} rows={2} value={draft.resumeArgs} spellCheck={false} placeholder={draft.resume === 'session' ? '--resume\n{sessionId}' : '--continue'} onChange={(event) => set({ resumeArgs: event.target.value })} />
          </label>
        )}
      </div>
      {error && (
        <p className="setting-error" role="alert">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="secondary-button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary-button" disabled={saving}>
          Save profile
        </button>
      </div>
    </form>
  );
}

/** A merged profile as the setting that stores it (an override of a built-in one keeps its id). */
function settingOf(profile: AgentProfile): AgentProfileSetting {
  return {
    id: profile.id,
    name: profile.name,
    kind: profile.kind,
    command: profile.command,
    args: profile.args,
    env: profile.env,
    prompt: profile.prompt,
    resume: profile.resume,
    reviewEditsInSwitchboard: profile.reviewEditsInSwitchboard,
  };
}
