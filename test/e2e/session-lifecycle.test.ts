/** How sessions end on real Chromium: timeouts, crashes, clients that leave early, tampered IDs. */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { SCRATCH_PREFIX } from '../../functions/pools/local/chromedriver-launcher';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { processGroupAlive } from '../support/processes';
import { until } from '../support/until';
import { sessionClaims } from './session-ended';

let grid: TestGrid;

beforeAll(async () => {
  grid = await startTestGrid({ timeouts: { idle: '30s' } });
});
afterAll(() => grid?.close());

async function newSession(options: Record<string, unknown> = {}) {
  const response = await request(`${grid.url}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      capabilities: { alwaysMatch: { browserName: 'chrome', 'gridgate:options': options } },
    }),
  });
  const body = (await response.body.json()) as {
    value: { sessionId: string; capabilities: { chrome: { userDataDir: string }; webSocketUrl?: string } };
  };
  expect(response.statusCode).toBe(200);
  return body.value;
}

async function command(sessionId: string, path = '/title') {
  const response = await request(`${grid.url}/session/${sessionId}${path}`);
  return {
    status: response.statusCode,
    body: (await response.body.json()) as { value: { error: string; message: string } },
  };
}

const processesUsing = (userDataDir: string) => {
  try {
    return execFileSync('pgrep', ['-f', userDataDir], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
};

describe('session lifecycle on real Chromium', () => {
  it('ends a session whose client asked for a short idle timeout, and says so', async () => {
    const session = await newSession({ idleTimeout: '3s' });
    const userDataDir = session.capabilities.chrome.userDataDir;
    await until(
      () =>
        grid.logger.lines.some(
          (line) => line.event === 'SESSION_TIMED_OUT' && line.fields.reason === 'idle timeout',
        ),
      'the idle timeout',
    );
    const after = await command(session.sessionId);
    expect(after.status).toBe(404);
    expect(after.body.value.error).toBe('invalid session id');
    expect(after.body.value.message).toContain('idle timeout');
    expect(processesUsing(userDataDir)).toBe('');
    // The profile goes once the browser is out of reach, after the session's end.
    await grid.launcher.tornDown(sessionClaims(grid, session.sessionId).handle);
    expect(existsSync(userDataDir)).toBe(false);
  });

  it('gives chromedriver and Chromium a temporary folder of their own, gone with the session', async () => {
    const session = await newSession();
    // The handle is the session's chromedriver's pid; Chromium inherits its environment.
    const { handle } = sessionClaims(grid, session.sessionId);
    const environment = readFileSync(`/proc/${handle}/environ`, 'utf8').split('\0');
    const scratch = environment.find((entry) => entry.startsWith('TMPDIR='))?.slice('TMPDIR='.length) ?? '';
    expect(scratch.startsWith(`${tmpdir()}/${SCRATCH_PREFIX}${process.pid}-`)).toBe(true);
    // chromedriver's scoped_dir and Chromium's org.chromium.Chromium.* folders, which a stopped browser
    // leaves behind in the machine's temporary directory otherwise, one or two for every session.
    await until(() => readdirSync(scratch).length > 0, 'the browser to write its temporary folder');
    const ended = await request(`${grid.url}/session/${session.sessionId}`, { method: 'DELETE' });
    expect(ended.statusCode).toBe(200);
    await ended.body.dump();
    // Answered once the browser's processes are gone; its folders go right after.
    expect(processGroupAlive(Number(handle))).toBe(false);
    await grid.launcher.tornDown(handle);
    expect(existsSync(scratch)).toBe(false);
  });

  it('refuses a session ID once it is older than the maximum age the client asked for', async () => {
    const session = await newSession({ maxAge: '1s' });
    // Letting the maximum age pass is what is tested: time itself is the condition.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const after = await command(session.sessionId);
    expect(after.status).toBe(404);
    expect(after.body.value.message).toContain('maximum age');
    await until(() => grid.launcher.running().length === 0, 'the browser past its maximum age to stop');
  });

  it('says the browser exited when chromedriver and Chromium die under a running session', async () => {
    const session = await newSession();
    const [handle] = grid.launcher.running();
    process.kill(-Number(handle), 'SIGKILL');
    await until(
      async () => (await command(session.sessionId)).status === 404,
      'the dead browser to be noticed',
    );
    const after = await command(session.sessionId);
    expect(after.body.value.error).toBe('invalid session id');
    expect(after.body.value.message).toContain('exited or crashed');
    // The slot frees once the dead browser's process group is confirmed gone.
    await until(async () => Object.keys(await grid.deps.sessions.inUse()).length === 0, 'the slot to free');
  });

  it('leaves nothing running when the client disconnects while the browser starts', async () => {
    const client = new AbortController();
    const creating = request(`${grid.url}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }),
      signal: client.signal,
    }).catch(() => undefined);
    await until(() => grid.launcher.running().length > 0, 'a browser to start');
    client.abort();
    await creating;
    await until(() => grid.logger.events().includes('SESSION_FAILED'), 'the creation to be abandoned');
    await until(() => grid.launcher.running().length === 0, 'the abandoned browser to stop');
    expect(await grid.deps.sessions.inUse()).toEqual({});
    expect(await grid.deps.sessions.running()).toEqual([]);
  });

  it('refuses a WebSocket for a tampered session ID before it reaches any browser', async () => {
    const session = await newSession({ idleTimeout: '5s' });
    const rejectionsBefore = grid.logger.events().filter((event) => event === 'SESSION_ID_REJECTED').length;
    const url =
      session.capabilities.webSocketUrl ?? `ws://127.0.0.1:${grid.port}/session/${session.sessionId}`;
    const middle = url.indexOf('/session/') + 9 + 40;
    const tampered = `${url.slice(0, middle)}${url[middle] === 'A' ? 'B' : 'A'}${url.slice(middle + 1)}`;
    const status = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(tampered);
      socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.once('open', () => reject(new Error('a tampered session ID opened a WebSocket')));
      socket.once('error', reject);
    });
    expect(status).toBe(404);
    const rejections = grid.logger.events().filter((event) => event === 'SESSION_ID_REJECTED').length;
    expect(rejections).toBe(rejectionsBefore + 1);
    await request(`${grid.url}/session/${session.sessionId}`, { method: 'DELETE' }).then((r) =>
      r.body.dump(),
    );
  });
});

afterAll(() => {
  if (process.env.GRIDGATE_TEST_LOGS)
    console.log(grid.logger.lines.map((line) => JSON.stringify(line)).join('\n'));
});
