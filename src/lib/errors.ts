// One error type for the whole service (DESIGN rule 4): services throw ApiError,
// and each app renders it in its own family's shape (legacy JSON, Kubernetes
// Status, Prometheus-style JSON). Anything else becomes a fixed 500.

export interface ApiErrorOptions {
  /** stable id of the failure, e.g. "password-auth.failed"; rendered as messageId by the legacy family */
  messageId?: string;
  /** extra public detail (legacy `extra`, Status `details.causes`) */
  extra?: Record<string, unknown>;
  /** fields merged into legacy bodies, e.g. {status: "version-mismatch"} */
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Kubernetes reason word for Status bodies, when it is not the status code's own (AlreadyExists, Invalid) */
  reason?: string;
  /** Status `details` (name, group, kind) */
  details?: Record<string, unknown>;
}

export class ApiError extends Error {
  readonly status: number;
  readonly options: ApiErrorOptions;
  constructor(status: number, message: string, options: ApiErrorOptions = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.options = options;
  }
}

export const badRequest = (message: string, options?: ApiErrorOptions) => new ApiError(400, message, options);
export const unauthorized = (message: string, options?: ApiErrorOptions) => new ApiError(401, message, options);
export const forbidden = (message: string, options?: ApiErrorOptions) => new ApiError(403, message, options);
export const notFound = (message: string, options?: ApiErrorOptions) => new ApiError(404, message, options);
export const conflict = (message: string, options?: ApiErrorOptions) => new ApiError(409, message, options);

/** Reason words of HTTP statuses, as Kubernetes Status objects and logs name them. */
export function reasonOf(status: number): string {
  switch (status) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 412: return "PreconditionFailed";
    case 413: return "RequestEntityTooLarge";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 503: return "ServiceUnavailable";
    default: return status >= 500 ? "InternalError" : "BadRequest";
  }
}
