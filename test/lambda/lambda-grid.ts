/** The fake grid (test/support/fake-grid) served the way the router Lambda serves it, through the harness. */

import { afterAll, afterEach, beforeAll } from 'vitest';
import { createApp } from '../../functions/http/create-app';
import type { LambdaHttpEvent } from '../../functions/servers/lambda/lambda-request';
import { streamingHandler } from '../../functions/servers/lambda/streaming-handler';
import { type FakeGrid, type FakeGridOptions, startFakeGrid } from '../support/fake-grid';
import {
  type Invocation,
  type InvokeOptions,
  installLambdaRuntime,
  invoke,
} from '../support/lambda-stream-harness';

export interface LambdaGrid {
  grid: FakeGrid;
  handler: ReturnType<typeof streamingHandler>;
  invoke(event: LambdaHttpEvent, options?: InvokeOptions): Promise<Invocation>;
  /** Errors the handler reported because the client could not hear of them. */
  handlerErrors: unknown[];
}

type LambdaGridOptions = FakeGridOptions & { safetyMarginMs?: number; restSilenceMs?: number };

/** A W3C new-session body for Chrome. */
export const NEW_CHROME = JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } });

/**
 * For a test file: the harness's runtime installed around its tests, and the grid a test starts with
 * `start()` closed after it.
 */
export function useLambdaGrids(): { start(options?: LambdaGridOptions): LambdaGrid } {
  let uninstall: (() => void) | undefined;
  let current: LambdaGrid | undefined;
  beforeAll(() => {
    uninstall = installLambdaRuntime();
  });
  afterAll(() => uninstall?.());
  afterEach(async () => {
    await current?.grid.close();
    current = undefined;
  });
  return {
    start: (options) => {
      current = startLambdaGrid(options);
      return current;
    },
  };
}

/** Needs the harness's runtime installed (installLambdaRuntime) before it is called. */
export function startLambdaGrid(options: LambdaGridOptions = {}): LambdaGrid {
  const grid = startFakeGrid(options);
  // As the router Lambda builds it (entry/router-lambda.ts).
  const app = createApp(grid.deps, { agent: grid.agent, webSockets: false, knownHostsOnly: false });
  const handlerErrors: unknown[] = [];
  const handler = streamingHandler((request, env) => app.fetch(request, env), {
    safetyMarginMs: options.safetyMarginMs,
    restSilenceMs: options.restSilenceMs,
    onError: (error) => handlerErrors.push(error),
  });
  return {
    grid,
    handler,
    handlerErrors,
    invoke: (event, invokeOptions) => invoke(handler, event, invokeOptions),
  };
}

export function jsonBody<T = { value: Record<string, unknown> }>(invocation: Invocation): T {
  return JSON.parse(invocation.body.toString('utf8')) as T;
}

/** A W3C error answer: status, JSON content type, {value:{error,message,stacktrace}} and nothing else. */
export function w3cError(invocation: Invocation): { status?: number; error: string; message: string } {
  const body = jsonBody<{ value: { error: string; message: string; stacktrace: string } }>(invocation);
  if (
    Object.keys(body).join() !== 'value' ||
    Object.keys(body.value).sort().join() !== 'error,message,stacktrace'
  ) {
    throw new Error(`not a W3C error body: ${invocation.body.toString('utf8')}`);
  }
  if (!invocation.headers['content-type']?.startsWith('application/json')) {
    throw new Error(`not a JSON answer: ${invocation.headers['content-type']}`);
  }
  return { status: invocation.statusCode, error: body.value.error, message: body.value.message };
}
