/**
 * The errors a call throws: one class per kind of answer a caller would branch on.
 *
 * Every refusal of the API is JSON `{code, message, detail}`; it becomes a `MemoryConsoleError`
 * carrying those and the HTTP status, of the subclass that fits the status. Branch on the class
 * (`instanceof`) for the kind of failure and on `.code` (stable) for the exact reason.
 */

export class MemoryConsoleError extends Error {
  /** HTTP status; 0 when no answer came. */
  readonly status: number;
  /** The API's stable code, e.g. `person_not_linked`. */
  readonly code: string;
  /** Details such as `current` (a conflict) or `remaining` (held by other bots). */
  readonly detail: Record<string, unknown>;
  /** Seconds to wait before retrying, when the server said (503, 429). */
  readonly retryAfter: number | null;

  constructor(
    status: number,
    code: string,
    message: string,
    detail: Record<string, unknown> = {},
    retryAfter: number | null = null,
  ) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.retryAfter = retryAfter;
  }
}

/** 400, 411, 413 or 422: the request is wrong (`detail.errors` lists each problem), a secret or an excluded topic was refused, an idempotency key reused. */
export class InvalidRequestError extends MemoryConsoleError {}
/** 401: no token, an unknown or revoked one, or a room ticket missing, invalid or expired. */
export class AuthenticationError extends MemoryConsoleError {}
/** 403: the room may not use that scope or project; the person is unknown or not linked. */
export class PermissionDeniedError extends MemoryConsoleError {}
/** 404: no such fact in what the bot may change here. */
export class NotFoundError extends MemoryConsoleError {}
/** 409: changed meanwhile (`conflict`), `room_conflict`, `held_by_other_bots`, a file to fix, memory paused. */
export class ConflictError extends MemoryConsoleError {}
/** 429: too many calls; `retryAfter` says how long to wait when the server said. */
export class RateLimitError extends MemoryConsoleError {}
/** 5xx: the server failed, or could not reach the model (502) or its storage (507). */
export class ServerError extends MemoryConsoleError {}
/** 503: the database or the memory volume is unavailable; nothing changed. Retry after `retryAfter`. */
export class UnavailableError extends ServerError {}
/** No answer at all (`status` 0, `code` `connection_failed` or `timeout`). */
export class ConnectionFailedError extends MemoryConsoleError {}

type ErrorClass = new (
  status: number,
  code: string,
  message: string,
  detail?: Record<string, unknown>,
  retryAfter?: number | null,
) => MemoryConsoleError;

const BY_STATUS: Record<number, ErrorClass> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  411: InvalidRequestError,
  413: InvalidRequestError,
  422: InvalidRequestError,
  429: RateLimitError,
  503: UnavailableError,
};

/** The error class for an HTTP status the API refused or failed a call with. */
export function errorClass(status: number): ErrorClass {
  return BY_STATUS[status] ?? (status >= 500 ? ServerError : status >= 400 ? InvalidRequestError : MemoryConsoleError);
}
