/**
 * docs/test-results.md's curl PUT, run as written but for the grid's address: alice ends a session, then
 * marks it failed after its end with the page's command over real HTTP; the record keeps what the page says,
 * the answer is the session as the status page shows it, and bob's same command gets the 404 the page says.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import type { UserDirectory } from '../../functions/core/ports';
import type { SessionView } from '../../functions/http/ui/ui-views';
import { W3C_CHROME } from '../support/fake-grid';
import { CollectingLogger, FakeLauncher } from '../support/fakes';
import { configWithOnePool } from '../support/one-pool-config';
import { type ServedApp, serveApp } from '../support/served-app';

const page = readFileSync(new URL('../../docs/test-results.md', import.meta.url), 'utf8');
const shellBlocks = [...page.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
const putExample = shellBlocks.find((block) => block.includes('-X PUT'));

// The page's users: alice signs in with "secret"; bob is someone else.
const PASSWORDS: Record<string, string> = { alice: 'secret', bob: 'bob-secret' };
const users: UserDirectory = { verify: async (user, password) => PASSWORDS[user] === password };
const basic = (user: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${PASSWORDS[user]}`).toString('base64')}`,
});

let grid: ServedApp;
let launcher: FakeLauncher;

beforeEach(async () => {
  launcher = new FakeLauncher();
  grid = await serveApp({
    config: configWithOnePool('local', { kind: 'local' }, { guest: null }),
    runtimes: { local: { launcher } },
    sessions: new MemorySessionStore(),
    logger: new CollectingLogger(),
    users,
  });
});
afterEach(async () => {
  await grid?.close();
  await launcher?.closeAll();
});

/** alice's session, created and ended by its own DELETE, as a test run before the framework marks it. */
async function endedSessionOfAlice(): Promise<{ id: string; key: string }> {
  const created = await fetch(`${grid.url}/session`, {
    method: 'POST',
    headers: { ...basic('alice'), 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(W3C_CHROME),
  });
  const body = (await created.json()) as { value: { sessionId: string } };
  expect(created.status, JSON.stringify(body)).toBe(200);
  const id = body.value.sessionId;
  const ended = await fetch(`${grid.url}/session/${id}`, { method: 'DELETE', headers: basic('alice') });
  expect(ended.status).toBe(200);
  return { id, key: grid.deps.tokens.unverifiedClaims(id)?.key ?? '' };
}

/** The page's command, as `user` where the page signs in as alice:secret; its output and exit code. */
async function runPutExample(sessionId: string, user = 'alice') {
  if (!putExample) throw new Error('docs/test-results.md has no curl PUT example');
  const command = putExample
    .replaceAll('http://localhost:4444', grid.url)
    .replace('-u alice:secret', `-u ${user}:${PASSWORDS[user]}`);
  // -s: curl's progress meter off; -w: the status after the body, so the answer can be checked whole.
  const { stdout } = await promisify(execFile)(
    'sh',
    ['-e', '-c', command.replace('curl ', "curl -s -w '\\n%{http_code}' ")],
    { env: { ...process.env, SESSION_ID: sessionId, NO_PROXY: '*' } },
  );
  const lines = stdout.trimEnd().split('\n');
  return { status: Number(lines.pop()), body: JSON.parse(lines.join('\n')) as unknown };
}

describe('docs/test-results.md: marking a result after the session', () => {
  it('marks the ended session failed with the page’s reason, and answers the session as the page shows it', async () => {
    const { id, key } = await endedSessionOfAlice();
    const answer = await runPutExample(id);
    expect(answer.status).toBe(200);
    const shown: Partial<SessionView> = {
      key,
      user: 'alice',
      state: 'ended',
      result: { status: 'failed', reason: 'checkout total was 41' },
    };
    expect(answer.body).toMatchObject({ value: shown });
    expect(await grid.deps.sessions.get(key)).toMatchObject({
      endReason: 'deleted',
      result: { status: 'failed', reason: 'checkout total was 41' },
    });
  });

  it('gives another user the 404 invalid session id the page promises, and changes nothing', async () => {
    const { id, key } = await endedSessionOfAlice();
    const answer = await runPutExample(id, 'bob');
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ value: { error: 'invalid session id' } });
    expect((await grid.deps.sessions.get(key))?.result).toBeUndefined();
  });
});
