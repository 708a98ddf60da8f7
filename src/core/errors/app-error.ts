/** The one application error type: raised by services, rendered by each transport's mapper. */

const STATUS_BY_CODE = {
  BAD_REQUEST: 400,
  UNSUPPORTED_VERSION: 400,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  CONFLICT: 409,
  INVALID_STATE: 409,
  OUT_OF_STOCK: 409,
  NOT_DELETED: 409,
  REVISION_INCOMPATIBLE: 409,
  PRECONDITION_FAILED: 412,
  PRECONDITION_REQUIRED: 428,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_ERROR: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof STATUS_BY_CODE;

export interface ErrorDetail {
  field: string;
  message: string;
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  headers?: Record<string, string>;
  status?: number;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? STATUS_BY_CODE[code];
    this.details = options.details;
    this.headers = options.headers;
  }

  static notFound(what: string): AppError {
    return new AppError('NOT_FOUND', `${what} not found`);
  }

  static validation(details: ErrorDetail[], message = 'Request validation failed'): AppError {
    return new AppError('VALIDATION_ERROR', message, { details });
  }

  static forbidden(message = 'You are not allowed to do this'): AppError {
    return new AppError('FORBIDDEN', message);
  }

  static unauthorized(message = 'Authentication required', description?: string): AppError {
    const challenge = description
      ? `Bearer realm="content-service", error="invalid_token", error_description="${description}"`
      : 'Bearer realm="content-service"';
    return new AppError('UNAUTHORIZED', message, { headers: { 'WWW-Authenticate': challenge } });
  }

  static conflict(message: string, details?: ErrorDetail[]): AppError {
    return new AppError('CONFLICT', message, details ? { details } : {});
  }
}

/** The error code a bare HTTP status maps to, for errors raised by the framework itself. */
export function codeForStatus(status: number): ErrorCode {
  const match = Object.entries(STATUS_BY_CODE).find(([, value]) => value === status);
  if (match) return match[0] as ErrorCode;
  return status >= 500 ? 'INTERNAL' : 'BAD_REQUEST';
}
