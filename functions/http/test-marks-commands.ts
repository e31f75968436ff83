/**
 * The two WebDriver commands a test tells the grid how it went by, answered here and never sent to the
 * browser: Selenium Grid 4.41's `POST /session/{id}/se/event` and the clouds' executor scripts sent as Execute
 * Script (core/executor-scripts.ts). Only Execute Script's body is read, and only a small one; every other
 * command, and every other script, streams to the browser as it came.
 */
import type { Context } from 'hono';
import { isObject } from '../core/capabilities';
import { EXECUTE_SYNC, executorMarks, isExecutorScript, MAX_EXECUTOR_BODY } from '../core/executor-scripts';
import type { GridDeps } from '../core/grid-deps';
import { eventMarks, MAX_EVENT_BODY, parseSessionEvent, sessionEventAnswer } from '../core/session-event';
import type { SessionClaims } from '../core/session-token';
import type { TestMarks } from '../core/test-marks';
import { readText } from './request-body';
import { webDriverJson } from './webdriver-json';

/** se/event: the event checked as Grid checks it, its result and name kept, and Grid's answer. */
export async function sessionEvent(c: Context, deps: GridDeps, claims: SessionClaims): Promise<Response> {
  const event = parseSessionEvent(
    await readText(c.req.raw, Math.min(MAX_EVENT_BODY, deps.config.limits.maxBodySize)),
  );
  deps.sessions.touch(claims.key, deps.clock.now(), 'POST', '/se/event');
  await markSession(deps, claims, eventMarks(event));
  return webDriverJson(c, sessionEventAnswer(event.eventType, deps.clock.now()));
}

/** Whether the command may be an executor script: asked of commands going to the browser, a string compare. */
export function mayCarryExecutorScript(method: string, rest: string): boolean {
  return method === 'POST' && rest === EXECUTE_SYNC;
}

/** What became of an Execute Script: answered here (an executor script), or its body, read, for the browser. */
export type ExecuteScript = { answered: Response } | { forward: string };

/**
 * Whether an Execute Script body declared this long is read at all: a longer one is no executor script and
 * streams to the browser unread, as every command's.
 */
export function readsExecuteScript(contentLength: string | undefined | null): boolean {
  return !(Number(contentLength ?? Number.NaN) > MAX_EXECUTOR_BODY);
}

/**
 * Reads a small Execute Script body on the portable path: an executor script is answered (`{"value": null}`,
 * as the clouds answer them) and its marks kept; anything else is forwarded as the very text read.
 */
export async function executeScript(
  c: Context,
  deps: GridDeps,
  claims: SessionClaims,
): Promise<ExecuteScript | undefined> {
  if (!readsExecuteScript(c.req.header('content-length'))) return undefined;
  const text = await readText(c.req.raw, deps.config.limits.maxBodySize);
  if (!(await answeredExecutorScript(deps, claims, text))) return { forward: text };
  return { answered: webDriverJson(c, EXECUTOR_SCRIPT_ANSWER) };
}

/** What an executor script is answered with. */
export const EXECUTOR_SCRIPT_ANSWER = { value: null };

/**
 * When the body is an executor script, keeps its marks and says true (the caller answers
 * EXECUTOR_SCRIPT_ANSWER); a wrong one throws its W3C error. False: a script for the browser.
 */
export async function answeredExecutorScript(
  deps: GridDeps,
  claims: SessionClaims,
  text: string,
): Promise<boolean> {
  const script = scriptOf(text);
  if (script === undefined || !isExecutorScript(script)) return false;
  deps.sessions.touch(claims.key, deps.clock.now(), 'POST', EXECUTE_SYNC);
  await markSession(deps, claims, executorMarks(script));
  return true;
}

function scriptOf(text: string): string | undefined {
  // Only text that may hold one is parsed: one substring search turns real scripts away first.
  if (!text.includes('sauce:') && !text.includes('browserstack_executor') && !text.includes('lambda-'))
    return undefined;
  try {
    const body: unknown = JSON.parse(text);
    return isObject(body) && typeof body.script === 'string' ? body.script : undefined;
  } catch {
    return undefined; // the browser says what is wrong with it
  }
}

async function markSession(deps: GridDeps, claims: SessionClaims, marks: TestMarks): Promise<void> {
  if (Object.keys(marks).length === 0) return;
  await deps.sessions.mark(claims.key, marks);
}
