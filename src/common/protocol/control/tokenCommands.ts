/**
 * `auth {token}` (authenticate a connection) and token management: `tokens.list`,
 * `tokens.create`, `tokens.revoke`.
 */
import { z } from 'zod';
import { ControlTokenInfo, ControlTokenScope, CreateControlTokenParams } from '../../api/contract.ts';
import { TerminalId } from '../../api/contractTypes.ts';

export const tokenCommandSchemas = {
  auth: {
    params: z.object({ token: z.string().min(1).max(512) }),
    // What the CLI needs to explain a refusal (a token limited to terminals that are gone).
    result: z.looseObject({
      token: z.looseObject({
        id: z.string(),
        name: z.string(),
        scopes: z.array(ControlTokenScope),
        terminals: z.array(TerminalId).nullable(),
        expiresAt: z.number().nullable(),
      }),
    }),
  },
  'tokens.list': {
    params: z.object({}),
    result: z.looseObject({ tokens: z.array(ControlTokenInfo) }),
  },
  'tokens.create': {
    params: CreateControlTokenParams.strip(),
    /** `secret` is shown once: only its hash is kept. */
    result: z.looseObject({ token: ControlTokenInfo, secret: z.string() }),
  },
  'tokens.revoke': {
    params: z.object({ tokenId: z.string().min(1).max(64) }),
    result: z.looseObject({ token: ControlTokenInfo }),
  },
} as const;
