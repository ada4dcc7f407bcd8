/**
 * The control socket answers a refused token with a bare code (`auth:required`, `auth:invalid`,
 * `auth:forbidden <verb>`, the protocol's words, which scripts match). A person or an agent
 * reading it also needs to know what to do: this adds that after the code.
 */
export function withAuthHint(message: string): string {
  if (message.startsWith('auth:required')) {
    return `${message} — this Switchboard requires an access token: pass --token or set SWITCHBOARD_TOKEN (switchboard tokens --help)`;
  }
  if (message.startsWith('auth:invalid')) return `${message} — the access token is unknown, revoked or expired`;
  if (message.startsWith('auth:forbidden')) return `${message} — the access token's scope or terminals do not allow this`;
  return message;
}
