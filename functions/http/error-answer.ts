/**
 * What gridgate answers when a request fails, wherever the answer is written (the app's onError, the
 * Node server's command path): a WebDriverError as its W3C body, status and headers, its cause logged; anything
 * else as a generic `unknown error` (500), logged, never shown (STYLE: one error type for the wire).
 */
import { WebDriverError } from '../core/errors';
import type { Logger } from '../core/ports';
import { logFailure } from './failure-log';
import { errorSecurityHeaders } from './ui/ui-page';
import { acceptsHtml } from './ui/ui-routes';

export interface FailedRequest {
  method: string;
  path: string;
  /** The request's Accept header: a browser asking for HTML under the status page gets the page's headers. */
  accept: string | undefined;
}

export interface ErrorAnswer {
  status: number;
  /** Besides W3C's Content-Type and Cache-Control (webdriver-json.ts). */
  headers: Record<string, string>;
  body: ReturnType<WebDriverError['toBody']>;
}

export function errorAnswer(error: unknown, request: FailedRequest, logger: Logger): ErrorAnswer {
  const security = errorSecurityHeaders(request.path, acceptsHtml(request.accept));
  logFailure(logger, { method: request.method, path: request.path }, error);
  if (error instanceof WebDriverError) {
    return { status: error.status, headers: { ...security, ...error.headers }, body: error.toBody() };
  }
  const generic = new WebDriverError('unknown error', 'gridgate failed to handle this request');
  return { status: 500, headers: security, body: generic.toBody() };
}
