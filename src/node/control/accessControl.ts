/**
 * Token auth on the control socket (docs/protocol.md, "Access tokens"). When the
 * `controlTokenAuth` setting is on, a connection must present a token (`auth {token}`, or
 * `hello {…, token}` for claws/2) before anything but `ping`; every later request is checked
 * against the token's verb groups and terminal list, and against revocation and expiry (so
 * revoking a token cuts off connections that already authenticated with it).
 */
import type { ControlTokenInfo, ControlTokenScope } from '../../common/api/contract.ts';
import type { ApiErrorCode } from '../../common/api/errors.ts';
import type { ControlRequest } from './controlConnection.ts';
import type { TokenStore } from './tokenStore.ts';

export const AuthErrors = {
  required: 'auth:required',
  invalid: 'auth:invalid',
  forbidden: (verb: string) => `auth:forbidden ${verb}`,
} as const;

/** Commands that only look. `drive` includes all of these. */
const readVerbs = new Set(['list', 'readLog', 'readScreen', 'poll', 'subscribe', 'unsubscribe', 'wait', 'introspect', 'ping', 'audit', 'hello', 'peers', 'task.list']);
/** Commands that change terminals or talk on the bus. Any command in neither set also needs `drive` (fail closed). */
export const driveOnlyVerbs = new Set(['send', 'exec', 'create', 'close', 'resize', 'signal', 'rename', 'show', 'publish', 'broadcast']);
/** History spans every terminal, closed ones too: reading it needs a token not limited to terminals. */
const historyVerbs = new Set(['history.list', 'history.search', 'history.get', 'history.read', 'history.commands', 'history.export', 'history.reference']);
/**
 * Agent workspaces reach repositories, not terminals (agent.start makes panes, worktree.finish
 * merges and closes them): a token limited to terminals cannot use them. Looking needs `read`.
 */
const workspaceReadVerbs = new Set(['agent.profiles', 'worktree.list', 'worktree.diff']);
const workspaceVerbs = new Set([...workspaceReadVerbs, 'agent.start', 'worktree.discard', 'worktree.finish']);
/** Token management needs a `drive` token that is not limited to terminals: a narrower token must not mint a wider one. */
const tokenManagementVerbs = new Set(['tokens.list', 'tokens.create', 'tokens.revoke']);
/** Answered without a token, so clients can probe the server before authenticating. */
const openVerbs = new Set(['ping', 'auth']);
/** Commands whose target is one terminal (its `terminalId`, else the request's own `id`, as in claws). */
const terminalVerbs = new Set(['show', 'send', 'exec', 'readLog', 'close', 'readScreen', 'wait', 'resize', 'signal', 'rename']);

export function requiredScope(cmd: string): ControlTokenScope {
  return readVerbs.has(cmd) || historyVerbs.has(cmd) || workspaceReadVerbs.has(cmd) ? 'read' : 'drive';
}

/** The scope one request needs: `history.reference` reads, unless it also types into a terminal (`deliverTo`). */
function requiredScopeOf(request: ControlRequest): ControlTokenScope {
  if (request.cmd === 'history.reference' && request.fields.deliverTo !== undefined && request.fields.deliverTo !== null) return 'drive';
  return requiredScope(request.cmd);
}

function allows(token: ControlTokenInfo, scope: ControlTokenScope): boolean {
  return token.scopes.includes('drive') || token.scopes.includes(scope);
}

/** `code` defaults to UNAUTHORIZED. */
export type AccessDecision = { ok: true } | { ok: false; error: string; code?: ApiErrorCode };

/** A terminal a token is limited to no longer exists: say so, instead of a bare "unknown terminal". */
export function tokenTerminalGone(tokenName: string, terminalId: string): string {
  return (
    `terminal ${terminalId} of token "${tokenName}" is gone (it was closed, or not restored when Switchboard restarted); ` +
    'the token reaches no terminal in its place: create a token for the terminal you want'
  );
}

export class ConnectionAccess {
  readonly #tokens: TokenStore;
  readonly #enforced: () => boolean;
  readonly #terminalExists: (id: string) => boolean;
  /** The token each connection authenticated with, by id: its current info is the store's (restored panes change its terminals). */
  readonly #tokenByConnection = new WeakMap<object, string>();

  constructor(options: { tokens: TokenStore; enforced: () => boolean; terminalExists: (id: string) => boolean }) {
    this.#tokens = options.tokens;
    this.#enforced = options.enforced;
    this.#terminalExists = options.terminalExists;
  }

  get enforced(): boolean {
    return this.#enforced();
  }

  /** Check a token secret and, if it is good, remember it for the connection. */
  authenticate(connection: object, secret: string): { ok: true; token: ControlTokenInfo } | { ok: false; error: string } {
    const verified = this.#tokens.verify(secret);
    if (!verified.ok) return { ok: false, error: AuthErrors.invalid };
    this.#tokenByConnection.set(connection, verified.token.id);
    return { ok: true, token: verified.token };
  }

  /** The token the connection authenticated with, if any, as it is now. */
  tokenOf(connection: object): ControlTokenInfo | undefined {
    const id = this.#tokenByConnection.get(connection);
    return id === undefined ? undefined : this.#tokens.get(id);
  }

  /**
   * Whether the connection may no longer receive anything: it authenticated with a token that has
   * since been revoked or has expired, or auth is on and it never authenticated (it subscribed
   * while auth was off).
   */
  isCutOff(connection: object): boolean {
    const id = this.#tokenByConnection.get(connection);
    if (id === undefined) return this.#enforced();
    return !this.#tokens.isActive(id);
  }

  /** Whether this request may run on this connection (before its fields are validated). */
  check(connection: object, request: ControlRequest): AccessDecision {
    const token = this.#tokenByConnection.get(connection);
    if (!this.#enforced()) {
      // Auth off: anything goes, but a connection that chose to present a token keeps its limits.
      return token ? this.#checkToken(connection, token, request) : { ok: true };
    }
    if (openVerbs.has(request.cmd)) return { ok: true };
    // `hello {token}` authenticates before this check runs (see ControlServer).
    if (!token) return { ok: false, error: AuthErrors.required };
    return this.#checkToken(connection, token, request);
  }

  #checkToken(connection: object, tokenId: string, request: ControlRequest): AccessDecision {
    if (request.cmd === 'auth') return { ok: true };
    const token = this.#tokens.isActive(tokenId) ? this.#tokens.get(tokenId) : undefined;
    if (!token) {
      this.#tokenByConnection.delete(connection);
      return { ok: false, error: AuthErrors.invalid };
    }
    const { cmd, fields } = request;
    if (tokenManagementVerbs.has(cmd)) return allows(token, 'drive') && token.terminals === null ? { ok: true } : { ok: false, error: AuthErrors.forbidden(cmd) };
    if (!allows(token, requiredScopeOf(request))) return { ok: false, error: AuthErrors.forbidden(cmd) };
    if (token.terminals === null) return { ok: true };
    if (historyVerbs.has(cmd) || workspaceVerbs.has(cmd)) return { ok: false, error: AuthErrors.forbidden(cmd) };
    const allowed = token.terminals;
    if (terminalVerbs.has(cmd)) {
      const ref = String(fields.terminalId ?? request.id);
      if (!allowed.includes(ref)) return { ok: false, error: AuthErrors.forbidden(cmd) };
      return this.#terminalExists(ref) ? { ok: true } : { ok: false, error: tokenTerminalGone(token.name, ref), code: 'NOT_FOUND' };
    }
    // A terminal-limited token cannot make new terminals (they would be outside its list).
    if (cmd === 'create') return { ok: false, error: AuthErrors.forbidden(cmd) };
    // Nor label its review request with another pane (the review view names the pane it came from).
    if (cmd === 'review.request' && fields.terminalId !== undefined && !allowed.includes(String(fields.terminalId))) {
      return { ok: false, error: AuthErrors.forbidden(cmd) };
    }
    if (cmd === 'subscribe' && !topicWithinTerminals(fields.topic, allowed)) return { ok: false, error: AuthErrors.forbidden(cmd) };
    // Nor have a task's prompt typed into a worker's terminal: the request does not name it, so it may be outside the list.
    if (cmd === 'task.assign' && fields.deliver !== undefined && fields.deliver !== null && fields.deliver !== 'publish') return { ok: false, error: AuthErrors.forbidden(cmd) };
    return { ok: true };
  }
}

/** Topic families whose second segment is a terminal id (output streams, exits, command events). */
const terminalTopicPrefixes = new Set(['terminal', 'command']);

/**
 * A terminal-limited token may subscribe to `terminal.<allowed id>.…`, `command.<allowed id>.…`
 * and to topics outside those families; a pattern that could match another terminal's topics
 * (`*`, `**`, `terminal.*…`, `command.**`) is refused.
 */
function topicWithinTerminals(topic: unknown, terminals: readonly string[]): boolean {
  if (typeof topic !== 'string') return true; // the command's own validation answers this
  const segments = topic.split('.');
  const first = segments[0];
  if (first === '*' || first === '**') return false;
  if (first === undefined || !terminalTopicPrefixes.has(first)) return true;
  const id = segments[1];
  return id !== undefined && terminals.includes(id);
}

/**
 * Filter a `list`/`poll` answer down to the terminals a limited token may see, so it learns
 * nothing about the others.
 */
export function filterBodyForToken(token: ControlTokenInfo | undefined, cmd: string, body: Record<string, unknown>): Record<string, unknown> {
  if (!token || token.terminals === null) return body;
  const allowed = new Set(token.terminals);
  const keep = (item: unknown): boolean => {
    if (typeof item !== 'object' || item === null) return false;
    const record = item as Record<string, unknown>;
    return allowed.has(String(record.terminalId ?? record.id));
  };
  const filtered: Record<string, unknown> = { ...body };
  if (cmd === 'list' && Array.isArray(body.terminals)) filtered.terminals = body.terminals.filter(keep);
  if (cmd === 'poll' && Array.isArray(body.events)) filtered.events = body.events.filter(keep);
  if (cmd === 'audit' && Array.isArray(body.entries)) filtered.entries = body.entries.filter(keep);
  return filtered;
}
