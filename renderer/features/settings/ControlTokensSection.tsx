import { type FormEvent, useEffect, useState } from 'react';
import type { ControlTokenInfo, ControlTokenScope, Settings } from '../../../src/common/api/contract.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { useObservable } from '../../app/observable.ts';
import { SwitchSetting } from './SwitchSetting.tsx';
import './controlTokens.css';

function day(epochMs: number | null): string {
  return epochMs === null ? 'never' : new Date(epochMs).toLocaleDateString();
}

function tokenState(token: ControlTokenInfo, now: number): 'active' | 'revoked' | 'expired' {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && token.expiresAt <= now) return 'expired';
  return 'active';
}

/**
 * The "Control socket" settings: whether agents need a token, the tokens (revocable), and a form
 * that creates one and shows its secret once (the Hub keeps only a hash).
 */
export function ControlTokensSection({ settings }: { settings: Settings }) {
  const workbench = useWorkbench();
  const { client, errors } = workbench;
  const [tokens, setTokens] = useState<ControlTokenInfo[]>([]);
  const terminalNames = useObservable(workbench.terminals);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<ControlTokenScope>('read');
  const [terminals, setTerminals] = useState('');
  const [expiresInDays, setExpiresInDays] = useState('');
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    let live = true;
    client.call('tokens.list', {}).then(
      (list) => live && setTokens(list),
      (error: unknown) => errors.report('Could not load the control tokens', error),
    );
    const subscription = client.on('tokens.changed', (list) => setTokens(list));
    return () => {
      live = false;
      subscription.dispose();
    };
  }, [client, errors]);

  const days = expiresInDays.trim() === '' ? undefined : Number(expiresInDays);
  const daysValid = days === undefined || (Number.isInteger(days) && days >= 1 && days <= 3650);
  // Names have spaces ("bash 2"): only commas separate terminals. The Hub resolves names and ids.
  const terminalRefs = terminals
    .split(',')
    .map((ref) => ref.trim())
    .filter((ref) => ref.length > 0);
  const canCreate = name.trim().length > 0 && daysValid;

  const create = async (event: FormEvent) => {
    event.preventDefault();
    if (!canCreate) return;
    try {
      const result = await client.call('tokens.create', {
        name: name.trim(),
        scopes: [scope],
        ...(terminalRefs.length > 0 ? { terminals: terminalRefs } : {}),
        ...(days !== undefined ? { expiresInDays: days } : {}),
      });
      setCreated({ name: result.token.name, secret: result.secret });
      setCopied(false);
      setName('');
      setTerminals('');
      setExpiresInDays('');
    } catch (error) {
      errors.report('Could not create the token', error);
    }
  };

  const revoke = (token: ControlTokenInfo) => {
    client.call('tokens.revoke', { id: token.id }).catch((error: unknown) => errors.report('Could not revoke the token', error));
  };

  const copy = (secret: string) => {
    navigator.clipboard.writeText(secret).then(
      () => setCopied(true),
      (error: unknown) => errors.report('Could not copy the token', error),
    );
  };

  const now = Date.now();
  return (
    <section className="settings-section" aria-labelledby="settings-control-socket">
      <h2 id="settings-control-socket">Control socket</h2>
      <SwitchSetting
        id="setting-control-token-auth"
        label="Require access tokens"
        help="Agents must authenticate with a token before they can use terminals. Off: any program you run can use the socket (claws clients work as is)."
        checked={settings.controlTokenAuth}
        onChange={(controlTokenAuth) => void workbench.updateSettings({ controlTokenAuth })}
      />

      {created && (
        <div className="token-secret" role="status" aria-label="New token secret">
          <span className="setting-help">Token “{created.name}” — copy it now, it is shown only this once:</span>
          <div className="token-secret-row">
            <code className="token-secret-value">{created.secret}</code>
            <button type="button" className="secondary-button" onClick={() => copy(created.secret)}>
              {copied ? 'Copied' : 'Copy'}
            </button>
            <button type="button" className="secondary-button" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      )}

      <form className="token-form" aria-label="Create a token" onSubmit={(event) => void create(event)}>
        <label className="token-field">
          <span>Name</span>
          <input className="text-input" aria-label="Token name" placeholder="e.g. claude-code" value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <label className="token-field">
          <span>Scope</span>
          <select aria-label="Token scope" value={scope} onChange={(event) => setScope(event.target.value as ControlTokenScope)}>
            <option value="read">Read</option>
            <option value="drive">Drive</option>
          </select>
        </label>
        <label className="token-field">
          <span>Terminals</span>
          <input
            className="text-input"
            aria-label="Terminals"
            placeholder="all, or names or ids, comma-separated"
            title="Leave empty for every terminal; else names (as in the sidebar) or ids, separated by commas"
            value={terminals}
            onChange={(event) => setTerminals(event.target.value)}
          />
        </label>
        <label className="token-field">
          <span>Expires in days</span>
          <input
            className="number-input"
            type="number"
            min={1}
            aria-label="Expires in days"
            placeholder="never"
            aria-invalid={!daysValid || undefined}
            value={expiresInDays}
            onChange={(event) => setExpiresInDays(event.target.value)}
          />
        </label>
        <button type="submit" className="primary-button" disabled={!canCreate}>
          Create token
        </button>
      </form>

      {tokens.length === 0 ? (
        <p className="setting-help token-empty">No tokens yet.</p>
      ) : (
        <table className="token-table" aria-label="Control tokens">
          <thead>
            <tr>
              <th>Name</th>
              <th>Scope</th>
              <th>Terminals</th>
              <th>Created</th>
              <th>Expires</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {tokens.map((token) => {
              const state = tokenState(token, now);
              return (
                <tr key={token.id} data-token-id={token.id} className={state === 'active' ? undefined : 'token-inactive'}>
                  <td>{token.name}</td>
                  <td>{token.scopes.join(', ')}</td>
                  <td>{token.terminals === null ? 'all' : token.terminals.map((id) => terminalNames.get(id)?.name ?? `${id} (gone)`).join(', ')}</td>
                  <td>{day(token.createdAt)}</td>
                  <td>{day(token.expiresAt)}</td>
                  <td className="token-actions">
                    {state === 'active' ? (
                      <button type="button" className="secondary-button" onClick={() => revoke(token)} aria-label={`Revoke ${token.name}`}>
                        Revoke
                      </button>
                    ) : (
                      <span className="setting-help">{state}</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
