/**
 * `auth {token}` (authenticate a connection; claws/1 clients use this, claws/2 may use `hello
 * {token}`) and token management over the socket: `tokens.list`, `tokens.create`, `tokens.revoke`.
 * Who may manage tokens is decided by ConnectionAccess: anyone while auth is off, else only a
 * `drive` token that is not limited to terminals.
 */
import { type ConnectionAccess } from '../accessControl.ts';
import { type ControlCommand, defineCommand } from '../commandRegistry.ts';
import { ControlError } from '../protocol.ts';
import type { TokenStore } from '../tokenStore.ts';

export function tokenCommands(deps: { tokens: TokenStore; access: ConnectionAccess }): ControlCommand[] {
  const { tokens, access } = deps;
  return [
    defineCommand('auth', (params, context) => {
      const result = access.authenticate(context.peer, params.token);
      if (!result.ok) throw new ControlError(result.error, 'UNAUTHORIZED');
      const { id, name, scopes, terminals, expiresAt } = result.token;
      return { token: { id, name, scopes, terminals, expiresAt } };
    }),
    defineCommand('tokens.list', () => ({ tokens: tokens.list() })),
    defineCommand('tokens.create', async (params) => await tokens.create(params)),
    defineCommand('tokens.revoke', async (params) => {
      const token = await tokens.revoke(params.tokenId);
      if (!token) throw new ControlError(`unknown token id ${params.tokenId}`, 'NOT_FOUND');
      return { token };
    }),
  ];
}
