/**
 * The "Remote access" settings: the relay's URL, this machine's id, the token (write-only: typed
 * into a password field, sent once, never shown again — the Hub keeps it in the OS keychain or a
 * 0600 file), connect on start, share all, and the live status.
 */
import { type FormEvent, useEffect, useState } from 'react';
import { Settings } from '../../../src/common/api/contract.ts';
import { RelayToken } from '../../../src/common/api/relayContract.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { SwitchSetting } from '../settings/SwitchSetting.tsx';
import { relayStatusWords, useNow } from './relayFormat.ts';
import './relay.css';

export function RemoteAccessSection({ settings }: { settings: Settings }) {
  const workbench = useWorkbench();
  const view = useObservable(workbench.relay.view);
  const now = useNow(view?.retryAt != null);
  // The remote view's own client has no remote access of its own to configure.
  if (!view) return null;
  const { status } = view;
  const fromCommandLine = status.configuredBy === 'command-line';
  const words = relayStatusWords(view, now);

  return (
    <section className="settings-section" aria-labelledby="settings-remote-access">
      <h2 id="settings-remote-access">Remote access</h2>
      <p className="setting-help relay-intro">
        Reach this Switchboard's shared terminals and pending reviews from a browser elsewhere, through a relay it dials out to. Run your own with{' '}
        <code>switchboard relay</code>; <code>switchboard relay add-machine ID</code> prints this machine's token.
      </p>

      <div className="setting-row relay-status-row" role="status" aria-label="Remote access status" data-relay-state={status.state}>
        <div className="setting-text">
          <span className="setting-name">Status</span>
          {words.detail && <span className="setting-help relay-status-detail">{words.detail}</span>}
        </div>
        <span className="relay-status-pill" data-tone={words.tone}>
          <span className="relay-dot" data-tone={words.tone} aria-hidden="true" />
          {words.label}
        </span>
      </div>

      {fromCommandLine && (
        <p className="relay-note" role="note">
          This Switchboard was started with <code>switchboard serve --relay</code>: the relay, machine id, token and sharing come from the command line for
          this run. The settings below apply when it starts without it.
        </p>
      )}

      <RelayTextSetting
        id="setting-relay-url"
        label="Relay URL"
        help="wss://relay.example.com — ws:// only for a relay on this machine."
        value={settings.relayUrl}
        placeholder="wss://relay.example.com"
        validate={(value) => Settings.shape.relayUrl.safeParse(value)}
        onCommit={(relayUrl) => void workbench.updateSettings({ relayUrl })}
      />
      <RelayTextSetting
        id="setting-relay-machine-id"
        label="Machine id"
        help="This machine's name on the relay. Empty: the host name."
        value={settings.relayMachineId}
        placeholder={fromCommandLine ? '' : status.machineId}
        validate={(value) => Settings.shape.relayMachineId.safeParse(value)}
        onCommit={(relayMachineId) => void workbench.updateSettings({ relayMachineId })}
      />
      <RelayTokenSetting saved={status.tokenSaved} storage={status.tokenStorage} />
      <SwitchSetting
        id="setting-relay-enabled"
        label="Connect on start"
        help="Connect to the relay now and every time Switchboard starts. Off: disconnected."
        checked={settings.relayEnabled}
        onChange={(relayEnabled) => void workbench.updateSettings({ relayEnabled })}
      />
      <SwitchSetting
        id="setting-relay-share-all"
        label="Share all terminals"
        help="Remote viewers see and can type into every terminal. Off: only the ones you share from their tab bar (and the ones viewers open)."
        checked={settings.relayShareAll}
        onChange={(relayShareAll) => void workbench.updateSettings({ relayShareAll })}
      />
    </section>
  );
}

interface Validation {
  success: boolean;
  error?: { issues: readonly { message: string }[] } | undefined;
}

/** A text field saved on Enter or blur, only when the settings schema accepts it (else the reason shows). */
function RelayTextSetting({
  id,
  label,
  help,
  value,
  placeholder,
  validate,
  onCommit,
}: {
  id: string;
  label: string;
  help: string;
  value: string;
  placeholder: string;
  validate(value: string): Validation;
  onCommit(value: string): void;
}) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  const trimmed = draft.trim();
  const check = validate(trimmed);
  const problem = check.success ? null : (check.error?.issues[0]?.message ?? 'invalid');
  const commit = () => {
    if (!problem && trimmed !== value) onCommit(trimmed);
  };
  return (
    <div className="setting-row setting-row-wide">
      <div className="setting-text">
        <label className="setting-name" htmlFor={id}>
          {label}
        </label>
        <span className={problem ? 'setting-help relay-field-error' : 'setting-help'} id={`${id}-help`}>
          {problem ?? help}
        </span>
      </div>
      <input
        id={id}
        type="text"
        className="text-input"
        spellCheck={false}
        autoComplete="off"
        value={draft}
        placeholder={placeholder}
        aria-invalid={problem ? true : undefined}
        aria-describedby={`${id}-help`}
        onChange={(event) => setDraft(event.target.value)}
        onBlur={commit}
        onKeyDown={(event) => {
          if (event.key === 'Enter') commit();
          if (event.key === 'Escape') setDraft(value);
        }}
      />
    </div>
  );
}

/** The token: write-only. A saved token is never shown; typing a new one replaces it. */
function RelayTokenSetting({ saved, storage }: { saved: boolean; storage: 'keychain' | 'file' }) {
  const workbench = useWorkbench();
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [justSaved, setJustSaved] = useState(false);
  const check = RelayToken.safeParse(draft.trim());
  const problem = draft.trim() !== '' && !check.success ? (check.error.issues[0]?.message ?? 'invalid') : null;
  const where = storage === 'keychain' ? 'in the OS keychain' : 'in a private file (0600)';

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const token = draft.trim();
    if (!token || problem || busy) return;
    setBusy(true);
    const ok = await workbench.relay.setToken(token);
    setBusy(false);
    if (ok) {
      setDraft('');
      setJustSaved(true);
    }
  };
  const remove = async () => {
    setBusy(true);
    await workbench.relay.setToken('');
    setBusy(false);
    setJustSaved(false);
  };

  return (
    <form className="setting-row setting-row-wide relay-token-row" aria-label="Relay token" onSubmit={(event) => void save(event)}>
      <div className="setting-text">
        <label className="setting-name" htmlFor="setting-relay-token">
          Token
        </label>
        <span className={problem ? 'setting-help relay-field-error' : 'setting-help'} id="setting-relay-token-help" data-token-state={saved ? 'saved' : 'none'}>
          {problem ?? (saved ? `${justSaved ? 'Saved' : 'Saved earlier'} ${where}; never shown again. Paste a new one to replace it.` : `This machine's daemon token. Kept ${where}, never in settings or logs.`)}
        </span>
      </div>
      <div className="relay-token-controls">
        <input
          id="setting-relay-token"
          type="password"
          className="text-input"
          autoComplete="off"
          spellCheck={false}
          value={draft}
          placeholder={saved ? '•••••••• saved' : 'sbrd_…'}
          aria-invalid={problem ? true : undefined}
          aria-describedby="setting-relay-token-help"
          onChange={(event) => {
            setDraft(event.target.value);
            setJustSaved(false);
          }}
        />
        <button type="submit" className="primary-button" disabled={!draft.trim() || problem !== null || busy}>
          Save token
        </button>
        {saved && (
          <button type="button" className="secondary-button" disabled={busy} onClick={() => void remove()}>
            Remove
          </button>
        )}
      </div>
    </form>
  );
}
