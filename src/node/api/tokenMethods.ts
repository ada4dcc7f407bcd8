/** Control-socket access tokens on the client API: `tokens.list`, `tokens.create`, `tokens.revoke`. */
import { ApiError } from '../../common/api/errors.ts';
import type { TokenStore } from '../control/tokenStore.ts';
import type { HubMethodHandlers } from './hubConnection.ts';

export function createTokenMethods(tokens: TokenStore): Pick<HubMethodHandlers, 'tokens.list' | 'tokens.create' | 'tokens.revoke'> {
  return {
    'tokens.list': () => tokens.list(),
    'tokens.create': (params) => tokens.create(params),
    'tokens.revoke': async ({ id }) => {
      const token = await tokens.revoke(id);
      if (!token) throw new ApiError('NOT_FOUND', `unknown token id ${id}`);
      return token;
    },
  };
}
