/**
 * The zero-config grid keeps one chromedriver ready (no Chromium): a new session takes it and skips
 * chromedriver's start, a replacement starts, a session that asks for its driver log gets a chromedriver
 * of its own started with --log-path; the ready one is no session (nothing in use, full capacity) and
 * never outlives gridgate: not its shutdown, and after a SIGKILL the next start's sweep ends it.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonRequest, W3C_CHROME } from '../../../support/fake-grid';
import { startTestGrid, type TestGrid } from '../../../support/grid-fixture';
import { type LaunchedProcess, launchedProcesses, orphansGone } from '../../../support/launched-processes';
import { type NodeServerProcess, startNodeServer } from '../../../support/node-server-process';
import { until } from '../../../support/until';

const TEST_MS = 150_000;

let grid: TestGrid | undefined;
const servers: NodeServerProcess[] = [];
afterEach(async () => {
  await grid?.close();
  grid = undefined;
  for (const server of servers.splice(0)) {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    server.dispose();
  }
});

/** The one chromedriver of `owner` (default: this process) with no session: the ready one, once there. */
const readyDriver = async (owner?: number): Promise<LaunchedProcess> =>
  (await until(() => {
    const drivers = launchedProcesses('chromedriver', owner);
    return drivers.length === 1 && launchedProcesses('chromium', owner).length === 0 && drivers[0];
  }, 'one chromedriver is ready, without a Chromium')) as LaunchedProcess;

async function newSession(url: string, payload: unknown = W3C_CHROME): Promise<string> {
  const created = await fetch(`${url}/session`, jsonRequest('POST', payload));
  const body = (await created.json()) as { value: { sessionId: string } };
  expect(created.status, JSON.stringify(body)).toBe(200);
  return body.value.sessionId;
}

describe('the ready chromedriver', { timeout: TEST_MS }, () => {
  it('is kept by default, holds no slot, is taken by a new session and replaced', async () => {
    grid = await startTestGrid();
    const ready = await readyDriver();
    expect(grid.launcher.running()).toEqual([]);
    const status = (await (await fetch(`${grid.url}/status`)).json()) as {
      value: { ready: boolean; message: string; pools: { name: string; inUse: number }[] };
    };
    expect(status.value.ready).toBe(true);
    expect(status.value.pools.map(({ name, inUse }) => ({ name, inUse }))).toEqual([
      { name: 'local', inUse: 0 },
    ]);

    const sessionId = await newSession(grid.url);
    expect(grid.launcher.running()).toEqual([String(ready.pid)]);
    // Another is made ready for the next session.
    const next = (await until(
      () => launchedProcesses('chromedriver').find((driver) => driver.pid !== ready.pid),
      'a replacement chromedriver is started',
    )) as LaunchedProcess;
    expect((await fetch(`${grid.url}/session/${sessionId}`, { method: 'DELETE' })).status).toBe(200);
    expect((await readyDriver()).pid).toBe(next.pid);
    expect(grid.launcher.running()).toEqual([]);
  });

  it('is left to others by a session that asks for its driver log', async () => {
    grid = await startTestGrid();
    const ready = await readyDriver();
    const sessionId = await newSession(grid.url, {
      capabilities: { alwaysMatch: { browserName: 'chrome', 'gridgate:options': { log: true } } },
    });
    const [handle] = grid.launcher.running();
    expect(handle).not.toBe(String(ready.pid));
    const own = launchedProcesses('chromedriver').find((driver) => String(driver.pid) === handle);
    expect(own?.args.some((arg) => arg.startsWith('--log-path='))).toBe(true);
    expect(launchedProcesses('chromedriver').map((driver) => driver.pid)).toContain(ready.pid);
    expect((await fetch(`${grid.url}/session/${sessionId}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('is stopped by the shutdown', async () => {
    grid = await startTestGrid();
    await readyDriver();
    await grid.close();
    grid = undefined;
    expect(launchedProcesses()).toEqual([]);
  });

  it('outlives a SIGKILLed gridgate only until the next start, whose sweep ends it', async () => {
    const config = { port: 0, host: '127.0.0.1' };
    const env = { GRIDGATE_SECRET: randomBytes(32).toString('hex') };
    const first = startNodeServer(config, env);
    servers.push(first);
    await first.url;
    const pid = first.child.pid as number;
    const orphan = await readyDriver(pid);
    first.child.kill('SIGKILL');
    await first.exited;
    // In its own process group, it is not taken down with its parent.
    expect(launchedProcesses('chromedriver', pid).map((driver) => driver.pid)).toEqual([orphan.pid]);

    const second = startNodeServer(config, env);
    servers.push(second);
    await second.url;
    await orphansGone(pid);
    // The new server keeps its own ready, and stops it when it is stopped.
    const secondPid = second.child.pid as number;
    await readyDriver(secondPid);
    // Its signal handlers are set once it says it is ready.
    await until(() => second.stderr().includes('WebDriver grid ready'), 'the second server is ready');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(launchedProcesses(undefined, secondPid)).toEqual([]);
  });
});
