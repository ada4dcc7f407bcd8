/**
 * `auth {token}` (authenticate a connection; claws/1 clients use this, claws/2 may use `hello
 * {token}`) and token management over the socket: `tokens.list`, `tokens.create`, `tokens.revoke`.
 * Who may manage tokens is decided by ConnectionAccess: anyone while auth is off, else only a
 * `drive` token that is not limited to terminals.
 */
import { z } from 'zod';
import { CreateControlTokenParams } from '../../../common/api/contract.ts';
import { type ConnectionAccess } from '../accessControl.ts';
import { type ControlCommand, defineCommand } from '../commandRegistry.ts';
import { ControlError } from '../protocol.ts';
import type { TokenStore } from '../tokenStore.ts';

export function tokenCommands(deps: { tokens: TokenStore; access: ConnectionAccess }): ControlCommand[] {
  const { tokens, access } = deps;
  return [
    defineCommand({
      name: 'auth',
      params: z.object({ token: z.string().min(1).max(512) }),
      run(params, context) {
        const result = access.authenticate(context.peer, params.token);
        if (!result.ok) throw new ControlError(result.error, 'UNAUTHORIZED');
        const { id, name, scopes, terminals, expiresAt } = result.token;
        return { token: { id, name, scopes, terminals, expiresAt } };
      },
    }),
    defineCommand({
      name: 'tokens.list',
      params: z.object({}),
      run: () => ({ tokens: tokens.list() }),
    }),
    defineCommand({
      name: 'tokens.create',
      // Envelope fields (id, cmd, protocol, clientName…) come along in the request; pick the token's own.
      params: z.looseObject({}).transform((fields) => {
        const { name, scopes, terminals, expiresInDays } = fields;
        return withoutUndefined({ name, scopes, terminals, expiresInDays });
      }).pipe(CreateControlTokenParams),
      run: async (params) => await tokens.create(params),
    }),
    defineCommand({
      name: 'tokens.revoke',
      params: z.object({ tokenId: z.string().min(1).max(64) }),
      async run(params) {
        const token = await tokens.revoke(params.tokenId);
        if (!token) throw new ControlError(`unknown token id ${params.tokenId}`, 'NOT_FOUND');
        return { token };
      },
    }),
  ] as ControlCommand[];
}

function withoutUndefined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
