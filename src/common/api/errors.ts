/** Expected failures travel as a code and a message; programmer errors throw. */
export const ApiErrorCodes = [
  'INVALID_PARAMS',
  'UNKNOWN_METHOD',
  'NOT_FOUND',
  'PTY_SPAWN_FAILED',
  'TERMINAL_EXITED',
  'UNAUTHORIZED',
  'TIMEOUT',
  /** The terminal is in use (a person's half-typed line, a full-screen program): nothing was done. */
  'BUSY',
  'CONNECTION_CLOSED',
  'INTERNAL',
  // Agent workspaces (workspaceContract.ts): each a failure the UI and an orchestrating agent handle differently.
  'NOT_A_GIT_REPO',
  'GIT_MISSING',
  'GIT_FAILED',
  'BRANCH_EXISTS',
  'INVALID_BRANCH',
  'PROFILE_NOT_INSTALLED',
  'SETUP_FAILED',
  'SETUP_TIMEOUT',
  'AGENT_LIMIT',
  /** A control-socket client asked for more terminals than its limit (settings socketMaxTerminals / socketMaxTerminalsPerClient). */
  'TERMINAL_LIMIT',
  /** A control-socket client asked too often (`create`, `exec`): `retryAfterMs` says when to try again. */
  'RATE_LIMITED',
  /** `tokens.create` when ControlConstants.maxStoredTokens tokens are all still good: revoke one first. */
  'TOKEN_LIMIT',
  'BASE_DIRTY',
  'MERGE_CONFLICT',
  'UNMERGED_WORK',
] as const;
export type ApiErrorCode = (typeof ApiErrorCodes)[number];

export interface ApiErrorData {
  code: ApiErrorCode;
  message: string;
}

export class ApiError extends Error {
  readonly code: ApiErrorCode;
  constructor(code: ApiErrorCode, message: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
  }
  toJSON(): ApiErrorData {
    return { code: this.code, message: this.message };
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
