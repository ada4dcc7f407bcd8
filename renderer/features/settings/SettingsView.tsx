import { useEffect, useState } from 'react';
import { Settings, defaultSettings } from '../../../src/common/api/contract.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { ViewPage } from '../../app/ViewPage.tsx';
import { ShortcutsList } from '../shortcuts/ShortcutsList.tsx';
import { ControlTokensSection } from './ControlTokensSection.tsx';
import { RemoteAccessSection } from '../relay/RemoteAccessSection.tsx';
import { SwitchSetting } from './SwitchSetting.tsx';
import { AgentProfilesSection } from '../workspaces/AgentProfilesSection.tsx';

const themeChoices: { value: Settings['theme']; label: string }[] = [
  { value: 'system', label: 'System' },
  { value: 'dark', label: 'Dark' },
  { value: 'light', label: 'Light' },
];

const gpuChoices: { value: Settings['gpuAcceleration']; label: string }[] = [
  { value: 'auto', label: 'Auto' },
  { value: 'on', label: 'On' },
  { value: 'off', label: 'Off' },
];

/** Settings are saved by the Hub (in the data dir) as soon as they change. */
export function SettingsView() {
  const workbench = useWorkbench();
  const settings = useObservable(workbench.settings);
  const { appState } = workbench;

  return (
    <ViewPage label="Settings" title="Settings" description="Saved automatically and shared by every Switchboard window.">
      <div className="settings-grid">
        <section className="settings-section" aria-labelledby="settings-appearance">
          <h2 id="settings-appearance">Appearance</h2>
          <ChoiceSetting
            id="setting-theme"
            label="Theme"
            help="System follows your desktop's light or dark preference."
            choices={themeChoices}
            value={settings.theme}
            onChange={(theme) => void workbench.updateSettings({ theme })}
          />
          <NumberSetting
            label="Font size"
            help="Terminal text size in pixels."
            value={settings.fontSize}
            schema={Settings.shape.fontSize}
            onCommit={(fontSize) => void workbench.updateSettings({ fontSize })}
          />
          <TextSetting
            label="Font family"
            help="A CSS font list; the first installed font is used."
            value={settings.fontFamily}
            placeholder={defaultSettings.fontFamily}
            onCommit={(fontFamily) => void workbench.updateSettings({ fontFamily: fontFamily || defaultSettings.fontFamily })}
          />
        </section>

        <section className="settings-section" aria-labelledby="settings-terminal">
          <h2 id="settings-terminal">Terminal</h2>
          <NumberSetting
            label="Scrollback"
            help="Lines kept above the screen in each pane."
            value={settings.scrollback}
            schema={Settings.shape.scrollback}
            step={1000}
            onCommit={(scrollback) => void workbench.updateSettings({ scrollback })}
          />
          <SwitchSetting
            id="setting-copy-on-select"
            label="Copy on select"
            help="Selected text goes to the clipboard at once. Paste with Ctrl+Shift+V."
            checked={settings.copyOnSelect}
            onChange={(copyOnSelect) => void workbench.updateSettings({ copyOnSelect })}
          />
          <ChoiceSetting
            id="setting-gpu-acceleration"
            label="GPU acceleration"
            help="Draw panes with WebGL. Auto: only on a hardware GPU (without one, WebGL is slower than the default renderer). Only panes in view use it."
            choices={gpuChoices}
            value={settings.gpuAcceleration}
            onChange={(gpuAcceleration) => void workbench.updateSettings({ gpuAcceleration })}
          />
          <SwitchSetting
            id="setting-restore-layout"
            label="Restore panes on start"
            help="Bring back the tabs, splits, names and folders of the last window, each pane showing its last screen above a fresh shell. Programs that were running do not survive a quit."
            checked={settings.restoreLayoutOnStart}
            onChange={(restoreLayoutOnStart) => void workbench.updateSettings({ restoreLayoutOnStart })}
          />
        </section>

        <section className="settings-section" aria-labelledby="settings-history">
          <h2 id="settings-history">History</h2>
          <SwitchSetting
            id="setting-history-enabled"
            label="Record sessions"
            help="Keep every terminal's output, timing and commands in History, searchable and replayable. What you type is never stored, only that input happened."
            checked={settings.historyEnabled}
            onChange={(historyEnabled) => void workbench.updateSettings({ historyEnabled })}
          />
          <SwitchSetting
            id="setting-history-idle"
            label="Keep unused shells"
            help="Also keep shells that were opened and closed without anyone typing into them or running a command (off: they leave no trace)."
            checked={settings.historyRecordIdleSessions}
            onChange={(historyRecordIdleSessions) => void workbench.updateSettings({ historyRecordIdleSessions })}
          />
          <NumberSetting
            label="Total size (MiB)"
            help="History never grows past this on disk; the oldest sessions are removed first."
            value={settings.historyMaxTotalMiB}
            schema={Settings.shape.historyMaxTotalMiB}
            step={256}
            onCommit={(historyMaxTotalMiB) => void workbench.updateSettings({ historyMaxTotalMiB })}
          />
          <NumberSetting
            label="Keep for (days)"
            help="Sessions older than this are removed. 0 keeps them until the size limit needs the room."
            value={settings.historyMaxAgeDays}
            schema={Settings.shape.historyMaxAgeDays}
            step={30}
            onCommit={(historyMaxAgeDays) => void workbench.updateSettings({ historyMaxAgeDays })}
          />
          <NumberSetting
            label="Per session (MiB)"
            help="A session that prints more keeps its newest output and is marked truncated."
            value={settings.historyMaxSessionMiB}
            schema={Settings.shape.historyMaxSessionMiB}
            step={16}
            onCommit={(historyMaxSessionMiB) => void workbench.updateSettings({ historyMaxSessionMiB })}
          />
        </section>

        <section className="settings-section" aria-labelledby="settings-agents">
          <h2 id="settings-agents">Agents</h2>
          <NumberSetting
            label="Agent typing pause"
            help="Milliseconds you must stop typing in a pane before an agent's text is sent to it, so it never lands mid-line. 0 sends at once."
            value={settings.agentSendIdleMs}
            schema={Settings.shape.agentSendIdleMs}
            step={100}
            onCommit={(agentSendIdleMs) => void workbench.updateSettings({ agentSendIdleMs })}
          />
          <SwitchSetting
            id="setting-claws-sockets"
            label="Claws-compatible sockets"
            help="Also listen on .claws/claws.sock in each workspace folder, where claws clients look. Takes effect at the next start."
            checked={settings.clawsCompatSockets}
            onChange={(clawsCompatSockets) => void workbench.updateSettings({ clawsCompatSockets })}
          />
          <NumberSetting
            label="Terminals agents may open"
            help="Running terminals that agents and scripts may open over the control socket, all together. One more is refused with TERMINAL_LIMIT; the panes you open are not counted."
            value={settings.socketMaxTerminals}
            schema={Settings.shape.socketMaxTerminals}
            step={1}
            onCommit={(socketMaxTerminals) => void workbench.updateSettings({ socketMaxTerminals })}
          />
          <NumberSetting
            label="…per agent connection"
            help="Running terminals one control-socket client (one connection) may open."
            value={settings.socketMaxTerminalsPerClient}
            schema={Settings.shape.socketMaxTerminalsPerClient}
            step={1}
            onCommit={(socketMaxTerminalsPerClient) => void workbench.updateSettings({ socketMaxTerminalsPerClient })}
          />
          <SwitchSetting
            id="setting-agent-dnd"
            label="Do not disturb"
            help="No desktop notification when an agent starts waiting for you. The Waiting for you list and the count in the window title stay."
            checked={settings.agentDoNotDisturb}
            onChange={(agentDoNotDisturb) => void workbench.updateSettings({ agentDoNotDisturb })}
          />
          <TextSetting
            label="Worktrees folder"
            help="Where New agent makes each agent's git worktree (a folder per repository inside it). Empty: beside the repository, in <repository>-worktrees. Never inside a repository."
            value={settings.worktreesFolder}
            placeholder="beside each repository"
            onCommit={(worktreesFolder) => void workbench.updateSettings({ worktreesFolder })}
          />
          <NumberSetting
            label="Setup script time limit"
            help="Seconds a repository's .switchboard/setup may run before the agent's start is given up and its worktree removed."
            value={settings.agentSetupTimeoutSec}
            schema={Settings.shape.agentSetupTimeoutSec}
            onCommit={(agentSetupTimeoutSec) => void workbench.updateSettings({ agentSetupTimeoutSec })}
          />
        </section>

        <AgentProfilesSection settings={settings} />

        <ControlTokensSection settings={settings} />

        <RemoteAccessSection settings={settings} />

        <section className="settings-section" aria-labelledby="settings-shortcuts">
          <h2 id="settings-shortcuts">Keyboard shortcuts</h2>
          <ShortcutsList />
        </section>

        <section className="settings-section" aria-labelledby="settings-about">
          <h2 id="settings-about">About</h2>
          <dl className="about-list">
            <dt>Version</dt>
            <dd>{appState.version}</dd>
            <dt>Running as</dt>
            <dd>{appState.host === 'browser' ? 'Browser mode (switchboard serve)' : appState.host === 'electron' ? 'Desktop app' : appState.host}</dd>
            <dt>Data folder</dt>
            <dd>
              <code>{appState.dataDir}</code>
            </dd>
            <dt>Workspace</dt>
            <dd>
              {appState.workspaceFolders.length === 0
                ? 'none'
                : appState.workspaceFolders.map((folder) => (
                    <code key={folder} className="about-path">
                      {folder}
                    </code>
                  ))}
            </dd>
          </dl>
        </section>
      </div>
    </ViewPage>
  );
}

interface NumberSchema {
  safeParse(value: unknown): { success: boolean };
  /** zod's bounds of a number schema (null when it has none). */
  readonly minValue: number | null;
  readonly maxValue: number | null;
}

/** One of a few choices, as a row of segments (a radio group). */
function ChoiceSetting<T extends string>({ id, label, help, choices, value, onChange }: { id: string; label: string; help: string; choices: { value: T; label: string }[]; value: T; onChange(value: T): void }) {
  return (
    <div className="setting-row">
      <div className="setting-text">
        <span className="setting-name" id={id}>
          {label}
        </span>
        <span className="setting-help">{help}</span>
      </div>
      <div className="segmented" role="radiogroup" aria-labelledby={id}>
        {choices.map((choice) => (
          <button key={choice.value} type="button" role="radio" aria-checked={value === choice.value} className="segment" onClick={() => onChange(choice.value)}>
            {choice.label}
          </button>
        ))}
      </div>
    </div>
  );
}

/** A number field that saves on Enter or blur, and only values the Hub's schema accepts. */
function NumberSetting({
  label,
  help,
  value,
  schema,
  step = 1,
  onCommit,
}: {
  label: string;
  help: string;
  value: number;
  schema: NumberSchema;
  step?: number;
  onCommit(value: number): void;
}) {
  const [draft, setDraft] = useState(String(value));
  const [refused, setRefused] = useState<string | null>(null);
  useEffect(() => setDraft(String(value)), [value]);
  const parsed = Number(draft);
  const valid = draft.trim() !== '' && schema.safeParse(parsed).success;
  const id = `setting-${label.toLowerCase().replace(/\s+/g, '-')}`;
  const min = schema.minValue ?? undefined;
  const max = schema.maxValue ?? undefined;
  const range = min !== undefined && max !== undefined ? `${min.toLocaleString('en')}–${max.toLocaleString('en')}` : null;
  const commit = () => {
    if (valid && parsed !== value) onCommit(parsed);
    // Said rather than silently put back: the person sees why the value did not take.
    if (!valid) {
      setRefused(`${draft.trim() || 'An empty value'} is not allowed${range ? `: ${range}` : ''}; kept ${value}.`);
      setDraft(String(value));
    } else {
      setRefused(null);
    }
  };
  return (
    <div className="setting-row">
      <div className="setting-text">
        <label className="setting-name" htmlFor={id}>
          {label}
        </label>
        <span className="setting-help">
          {help}
          {range && ` (${range})`}
        </span>
        {refused && (
          <span className="setting-error" role="alert">
            {refused}
          </span>
        )}
      </div>
      <input
        id={id}
        type="number"
        className="number-input"
        inputMode="numeric"
        step={step}
        {...(min !== undefined ? { min } : {})}
        {...(max !== undefined ? { max } : {})}
        value={draft}
        aria-invalid={!valid || undefined}
        onChange={(event) => {
          setDraft(event.target.value);
          setRefused(null);
        }}
        onBlur={commit}
        onKeyDown={(event) => {
          if (event.key === 'Enter') commit();
        }}
      />
    </div>
  );
}

function TextSetting({
  label,
  help,
  value,
  placeholder,
  onCommit,
}: {
  label: string;
  help: string;
  value: string;
  placeholder: string;
  onCommit(value: string): void;
}) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  const id = `setting-${label.toLowerCase().replace(/\s+/g, '-')}`;
  const commit = () => {
    if (draft.trim() !== value) onCommit(draft.trim());
  };
  return (
    <div className="setting-row setting-row-wide">
      <div className="setting-text">
        <label className="setting-name" htmlFor={id}>
          {label}
        </label>
        <span className="setting-help">{help}</span>
      </div>
      <input
        id={id}
        type="text"
        className="text-input"
        spellCheck={false}
        value={draft}
        placeholder={placeholder}
        onChange={(event) => setDraft(event.target.value)}
        onBlur={commit}
        onKeyDown={(event) => {
          if (event.key === 'Enter') commit();
        }}
      />
    </div>
  );
}
