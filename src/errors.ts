/**
 * The one error type of the service. Services throw it; the HTTP layer maps it to
 * `{statusCode, error, message}` in one place (src/http/error-handler.ts).
 * `code` is stable and machine-readable; `message` is safe to show to a client.
 */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'VALIDATION'
  | 'UNAUTHORIZED'
  | 'TOKEN_EXPIRED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'PROJECT_NOT_FOUND'
  | 'CONFLICT'
  | 'QUERY_TIMEOUT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'QUERY_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'SERVER_BUSY'
  | 'INTERNAL';

const STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  VALIDATION: 400,
  UNAUTHORIZED: 401,
  TOKEN_EXPIRED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  PROJECT_NOT_FOUND: 404,
  CONFLICT: 409,
  QUERY_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  QUERY_TOO_LARGE: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  SERVER_BUSY: 503,
};

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  /** Extra response headers, e.g. Retry-After on 429. */
  readonly headers: Readonly<Record<string, string>>;

  /** `cause`: what went wrong underneath, for the log (never sent to the client). */
  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'AppError';
    this.code = code;
    this.statusCode = STATUS[code];
    this.headers = headers;
  }
}

export const badRequest = (message: string): AppError => new AppError('BAD_REQUEST', message);
export const unauthorized = (message = 'Authentication required'): AppError => new AppError('UNAUTHORIZED', message);
export const forbidden = (message = 'Insufficient permissions'): AppError => new AppError('FORBIDDEN', message);
export const notFound = (message: string): AppError => new AppError('NOT_FOUND', message);
export const conflict = (message: string): AppError => new AppError('CONFLICT', message);
/** A 500 whose client message is generic; `cause` is logged once with its stack by the HTTP layer. */
export const internalError = (message: string, cause: unknown): AppError => new AppError('INTERNAL', message, {}, cause);
