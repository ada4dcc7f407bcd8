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
