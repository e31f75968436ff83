/**
 * gridgate's own JSON answers as W3C WebDriver §6.3 "Send a response" says every answer goes out:
 * `Content-Type: application/json; charset=utf-8` and `Cache-Control: no-cache`. Browsers' answers pass
 * through with their own headers.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export const WEBDRIVER_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-cache',
} as const;

export function webDriverJson(
  c: Context,
  body: unknown,
  status: ContentfulStatusCode = 200,
  headers: Record<string, string> = {},
): Response {
  return c.json(body, status, { ...WEBDRIVER_HEADERS, ...headers });
}
