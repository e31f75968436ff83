/** The one error type gridgate puts on the wire: W3C WebDriver error codes and their HTTP statuses. */

// W3C WebDriver §6.6 "Errors": the codes gridgate itself produces, with the spec's HTTP status.
const STATUS_BY_CODE = {
  'invalid argument': 400,
  'invalid session id': 404,
  'session not created': 500,
  'unknown command': 404,
  'unknown method': 405,
  'unknown error': 500,
  timeout: 500,
  'unsupported operation': 500,
} as const;

export type WebDriverErrorCode = keyof typeof STATUS_BY_CODE;

export interface WebDriverErrorOptions {
  cause?: unknown;
  /** Overrides the spec's status where HTTP has a more precise one (413 for an oversized body). */
  status?: number;
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>;
  /** The session the failure concerns: named in the grid's log beside the cause, never sent to the client. */
  session?: { key: string; pool: string };
}

export class WebDriverError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly session: { key: string; pool: string } | undefined;

  constructor(
    readonly code: WebDriverErrorCode,
    message: string,
    options: WebDriverErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'WebDriverError';
    this.status = options.status ?? STATUS_BY_CODE[code];
    this.headers = options.headers ?? {};
    this.session = options.session && { key: options.session.key, pool: options.session.pool };
  }

  /** The W3C error body: {"value":{"error","message","stacktrace"}}. */
  toBody(): { value: { error: string; message: string; stacktrace: string } } {
    return { value: { error: this.code, message: this.message, stacktrace: '' } };
  }
}

export const invalidArgument = (message: string, options?: WebDriverErrorOptions) =>
  new WebDriverError('invalid argument', message, options);
export const invalidSessionId = (message: string) => new WebDriverError('invalid session id', message);
export const sessionNotCreated = (message: string, options?: WebDriverErrorOptions) =>
  new WebDriverError('session not created', message, options);
