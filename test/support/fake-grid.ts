/** The whole gridgate app in-process (createApp) with fake browsers, a fixed clock and an in-memory store. */
import { afterEach, expect } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { parseConfig } from '../../functions/core/config';
import { EndedSessions } from '../../functions/core/ended-sessions';
import { EndingSessions } from '../../functions/core/ending-sessions';
import { type GridDeps, sessionPool } from '../../functions/core/grid-deps';
import type { SessionStore, UserDirectory } from '../../functions/core/ports';
import { SessionTokens } from '../../functions/core/session-token';
import { SlotQueue } from '../../functions/core/slot-queue';
import { createApp } from '../../functions/http/create-app';
import { POOL_TRAITS } from '../../functions/pools';
import { HubArtifacts } from '../../functions/pools/hub/hub-artifacts';
import { hubRuntime } from '../../functions/pools/hub/hub-pool-runtime';
import {
  CollectingLogger,
  FakeLauncher,
  type FakeLauncherOptions,
  FixedClock,
  LoopbackOnlyAgent,
  RecordingMetrics,
} from './fakes';

export const TEST_SECRET = Buffer.from('gridgate-http-test-secret-32-bytes!!');

/** One local pool "local" serving chrome 156.0.7000.1 (alias chromium), two sessions at a time. */
export const BASE_CONFIG = {
  browsers: {
    chrome: {
      aliases: ['chromium'],
      defaultVersion: '156.0.7000.1',
      versions: { '156.0.7000.1': { pools: ['local'] } },
    },
  },
  pools: { local: { kind: 'local', maxSessions: 2 } },
};

export interface FakeGrid {
  app: ReturnType<typeof createApp>;
  deps: GridDeps;
  launcher: FakeLauncher;
  sessions: SessionStore;
  clock: FixedClock;
  logger: CollectingLogger;
  metrics: RecordingMetrics;
  agent: LoopbackOnlyAgent;
  close(): Promise<void>;
}

export interface FakeGridOptions {
  /** Config as a user writes it; replaces BASE_CONFIG's keys. */
  config?: Record<string, unknown>;
  launcher?: FakeLauncherOptions;
  sessions?: SessionStore;
  /** Checks Basic credentials; give one together with a config `usersFile`. */
  users?: UserDirectory;
}

export function startFakeGrid(options: FakeGridOptions = {}): FakeGrid {
  const config = parseConfig({ ...BASE_CONFIG, ...options.config }, { builtInBrowserVersion: 'unused' });
  const launcher = new FakeLauncher(options.launcher);
  const clock = new FixedClock();
  const logger = new CollectingLogger();
  const metrics = new RecordingMetrics();
  const sessions = options.sessions ?? new MemorySessionStore(clock);
  const agent = new LoopbackOnlyAgent();
  const deps: GridDeps = {
    config,
    runtimes: { local: { launcher }, hub: hubRuntime() },
    poolTraits: POOL_TRAITS,
    artifacts: { hub: new HubArtifacts((session) => sessionPool(deps, session), agent) },
    sessions,
    queue: new SlotQueue(),
    ended: new EndedSessions(),
    ending: new EndingSessions(),
    users: options.users,
    tokens: new SessionTokens(TEST_SECRET),
    logger,
    metrics,
    clock,
    version: '9.9.9-test',
  };
  const app = createApp(deps, { agent });
  return {
    app,
    deps,
    launcher,
    sessions,
    clock,
    logger,
    metrics,
    agent,
    close: async () => {
      await launcher.closeAll();
      await agent.close();
    },
  };
}

/**
 * Starts a fake grid for each test that asks, and closes every one it started after the test. Call at
 * the top of a test file: `const start = fakeGridPerTest();`, then `const grid = start(options)` in a test.
 */
export function fakeGridPerTest(): (options?: FakeGridOptions) => FakeGrid {
  const started: FakeGrid[] = [];
  afterEach(async () => {
    for (const grid of started.splice(0)) await grid.close();
  });
  return (options = {}) => {
    const grid = startFakeGrid(options);
    started.push(grid);
    return grid;
  };
}

/** Users who sign in with the password "<name>-pw": who may do what is the config's business. */
export const NAME_PW_USERS: UserDirectory = { verify: async (user, password) => password === `${user}-pw` };

/** The Basic authorization header of `user` signing in with "<name>-pw". */
export const signedInAs = (user: string): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${user}:${user}-pw`).toString('base64')}`,
});

/** Options for a grid behind a users file: everyone signs in as NAME_PW_USERS unless `users` says otherwise. */
export function withUsers(options: FakeGridOptions = {}): FakeGridOptions {
  return { users: NAME_PW_USERS, ...options, config: { usersFile: 'users.htpasswd', ...options.config } };
}

/** The fake grid behind a users file (withUsers). */
export function gridWithUsers(options: FakeGridOptions = {}): FakeGrid {
  return startFakeGrid(withUsers(options));
}

export const W3C_CHROME = { capabilities: { alwaysMatch: { browserName: 'chrome' } } };

export function jsonRequest(
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
): RequestInit {
  return {
    method,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

export interface NewSessionAnswer {
  value: { sessionId: string; capabilities: Record<string, unknown> };
  sessionId?: string;
  status?: number;
}

/** POST {base}/session to the grid's app. */
export function postSession(
  grid: FakeGrid,
  payload: unknown = W3C_CHROME,
  headers: Record<string, string> = {},
  base = '',
): Promise<Response> {
  return Promise.resolve(grid.app.request(`${base}/session`, jsonRequest('POST', payload, headers)));
}

/** The answer of a new-session request, failing the test (with the body) if the grid refused it. */
export async function created(response: Response): Promise<NewSessionAnswer> {
  const body = (await response.json()) as NewSessionAnswer;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** Creates a session and returns the grid's session ID, failing the test if the grid refused. */
export async function newSession(grid: FakeGrid, payload: unknown = W3C_CHROME, base = ''): Promise<string> {
  return (await created(await postSession(grid, payload, {}, base))).value.sessionId;
}

/**
 * Asserts a gridgate error: the status, the W3C body {value:{error,message,stacktrace}} and nothing else.
 * `page`: an answer under the status page's paths, which carries the page's `no-store` instead of W3C's
 * `no-cache`.
 */
export async function expectW3cError(
  response: Response,
  status: number,
  error: string,
  message?: string | RegExp,
  options: { page?: boolean } = {},
): Promise<string> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  // W3C §6.3 "Send a response".
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(response.headers.get('cache-control')).toBe(options.page ? 'no-store' : 'no-cache');
  const body = JSON.parse(text) as { value: { error: string; message: string; stacktrace: string } };
  expect(Object.keys(body)).toEqual(['value']);
  expect(Object.keys(body.value).sort()).toEqual(['error', 'message', 'stacktrace']);
  expect(body.value.error).toBe(error);
  expect(typeof body.value.stacktrace).toBe('string');
  expect(body.value.message).not.toBe('');
  if (message !== undefined) expect(body.value.message).toMatch(message);
  return body.value.message;
}
