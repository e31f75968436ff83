/**
 * The fake grid the status page's tests use, through the whole app: alice, bob and root (an admin) sign in
 * from a users file, guests are allowed, and two pools of 3: the uncoloured "local" and "blue", which only
 * sessions asked in blue use; and the page's own requests and errors.
 */
import { afterEach, expect } from 'vitest';
import type { Overview } from '../../functions/http/ui/ui-views';
import {
  expectW3cError,
  type FakeGrid,
  fakeGridPerTest,
  jsonRequest,
  type NewSessionAnswer,
  W3C_CHROME,
} from './fake-grid';
import type { FakeLauncherOptions } from './fakes';
import { openPageUsers, type PageUsers } from './page-users';

export type StartStatusPageGrid = (
  config?: Record<string, unknown>,
  launcher?: FakeLauncherOptions,
) => FakeGrid;

/**
 * Call at the top of a test file: `const startGrid = statusPageGrids();`, then `const grid = startGrid()`
 * in a test, `config` replacing the keys it names. Every grid started is closed after its test.
 */
export function statusPageGrids(): StartStatusPageGrid {
  const opened: PageUsers[] = [];
  afterEach(async () => {
    for (const users of opened.splice(0)) await users.close();
  });
  // Registered after the users' hook, so it runs before it: each grid is closed before its users.
  const start = fakeGridPerTest();
  return (config = {}, launcher = {}) => {
    const users = openPageUsers();
    opened.push(users);
    return start({
      config: {
        usersFile: users.file,
        admins: ['root'],
        browsers: { chrome: { versions: { '156.0.7000.1': { pools: ['local', 'blue'] } } } },
        pools: {
          local: { kind: 'local', maxSessions: 3 },
          blue: { kind: 'local', maxSessions: 3, color: 'blue' },
        },
        ...config,
      },
      users: users.directory,
      launcher,
    });
  };
}

/** Creates a session as `user` signing in with `headers`, and returns its key. */
export async function newSessionAs(
  grid: FakeGrid,
  headers: Record<string, string>,
  user: string,
): Promise<string> {
  const response = await grid.app.request('/session', jsonRequest('POST', W3C_CHROME, headers));
  const body = (await response.json()) as NewSessionAnswer;
  expect(response.status, JSON.stringify(body)).toBe(200);
  const check = grid.deps.tokens.verify(body.value.sessionId, user);
  if (!check.ok) throw new Error(`the session ID is not ${user}'s`);
  return check.claims.key;
}

export async function overviewAs(grid: FakeGrid, headers: Record<string, string>): Promise<Overview> {
  const response = await grid.app.request('/ui/api/overview', { headers });
  expect(response.status).toBe(200);
  return (await response.json()) as Overview;
}

export const sessionApi = (key: string) => `/ui/api/sessions/${key}`;

/** A status-page error: a W3C body with the page's own headers (no-store). */
export const expectPageError = (
  response: Response,
  status: number,
  error: string,
  message?: string | RegExp,
) => expectW3cError(response, status, error, message, { page: true });
