/**
 * No container outlives its session, on every path that ends one: DELETE, idle timeout, maximum age, the
 * browser's container dying, the client going away during creation, the server's shutdown, and a server
 * SIGKILLed then started again (its start-up sweep). The chromedriver image, whose containers start in a second.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTAINERS_CONF, type TestImages } from '../../../../scripts/test-images';
import {
  containerImages,
  containersOfPool,
  doorOf,
  removeContainersOfPool,
  startContainerGrid,
  uniquePoolName,
} from '../../../support/container-grid';
import type { TestGrid } from '../../../support/grid-fixture';
import { type NodeServerProcess, startNodeServer } from '../../../support/node-server-process';
import { eventually, until } from '../../../support/until';

const TEST_MS = 120_000;
const JSON_UTF8 = { 'content-type': 'application/json; charset=utf-8' };
const NEW_SESSION = JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } });

let images: TestImages;
const pools: string[] = [];
const grids: TestGrid[] = [];
const servers: NodeServerProcess[] = [];

beforeAll(async () => {
  images = await containerImages();
}, 900_000);

afterAll(async () => {
  await Promise.all(grids.map((grid) => grid.close()));
  for (const server of servers) await server.stop();
  for (const pool of pools) removeContainersOfPool(pool);
});

async function grid(
  prefix: string,
  rest: Record<string, unknown> = {},
): Promise<{ grid: TestGrid; pool: string }> {
  const pool = uniquePoolName(prefix);
  pools.push(pool);
  const started = await startContainerGrid(pool, { image: images.chromedriver }, rest);
  grids.push(started);
  return { grid: started, pool };
}

async function newSession(url: string, signal?: AbortSignal): Promise<string> {
  const answer = await fetch(`${url}/session`, {
    method: 'POST',
    headers: JSON_UTF8,
    body: NEW_SESSION,
    signal,
  });
  const body = (await answer.json()) as { value: { sessionId: string } };
  expect(answer.status).toBe(200);
  return body.value.sessionId;
}

function endReason(grid: TestGrid, sessionId: string): unknown {
  const check = grid.deps.tokens.verify(sessionId, 'guest');
  if (!check.ok) throw new Error(check.reason);
  return grid.logger.lines.find((line) => line.fields.session === check.claims.key && line.fields.reason)
    ?.fields.reason;
}

describe('a container pool removes the container', { timeout: TEST_MS }, () => {
  it('when the client deletes the session, and its DevTools door with it', async () => {
    const { grid: g, pool } = await grid('end-delete');
    const id = await newSession(g.url);
    const [container] = containersOfPool(pool);
    expect(doorOf(container as string)).toEqual({ named: true, pasta: true });
    const deleted = await fetch(`${g.url}/session/${id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(containersOfPool(pool)).toEqual([]);
    expect(doorOf(container as string)).toEqual({ named: false, pasta: false });
    expect(endReason(g, id)).toBe('deleted');
  });

  it('when the session goes idle, and when it reaches its maximum age while busy', async () => {
    const { grid: g, pool } = await grid('end-timeouts', { timeouts: { idle: '3s', maxAge: '8s' } });
    const idle = await newSession(g.url);
    await eventually(() => expect(endReason(g, idle)).toBe('idle timeout'), 60_000, 200);
    expect(containersOfPool(pool)).toEqual([]);

    const busy = await newSession(g.url);
    // A command every half second: never idle, so only its age can end it.
    await until(
      async () => (await fetch(`${g.url}/session/${busy}/url`)).status === 404,
      'the busy session ended',
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    await eventually(() => expect(endReason(g, busy)).toBe('max age'));
    expect(containersOfPool(pool)).toEqual([]);
  });

  it("when its container dies, and the session's next command says the session is gone", async () => {
    const { grid: g, pool } = await grid('end-died');
    const id = await newSession(g.url);
    const [container] = containersOfPool(pool);
    execFileSync('podman', ['kill', container as string], { env: { ...process.env, CONTAINERS_CONF } });
    await eventually(() => expect(endReason(g, id)).toBe('browser exited'), 30_000, 100);
    expect(containersOfPool(pool)).toEqual([]);
    const answer = await fetch(`${g.url}/session/${id}/url`);
    expect(answer.status).toBe(404);
  });

  it('when the client goes away while its session is being created', async () => {
    const { grid: g, pool } = await grid('end-gone');
    const client = new AbortController();
    const creation = newSession(g.url, client.signal).catch((error: unknown) => error);
    await until(() => containersOfPool(pool).length === 1, 'the container was started', { intervalMs: 20 });
    client.abort();
    expect(await creation).toBeInstanceOf(Error);
    await eventually(() => expect(containersOfPool(pool)).toEqual([]), 30_000, 100);
    await eventually(async () => expect((await g.deps.sessions.inUse())[pool] ?? 0).toBe(0));
  });

  it('when the server shuts down with the session running', async () => {
    const { grid: g, pool } = await grid('end-shutdown');
    await newSession(g.url);
    expect(containersOfPool(pool)).toHaveLength(1);
    await g.close();
    expect(containersOfPool(pool)).toEqual([]);
  });

  it('left by a server killed outright, at the next start of gridgate on this machine', async () => {
    const pool = uniquePoolName('end-killed');
    pools.push(pool);
    const config = {
      port: 0,
      host: '127.0.0.1',
      browsers: { chrome: { defaultVersion: '156', versions: { '156': { pools: [pool] } } } },
      pools: { [pool]: { kind: 'container', image: images.chromedriver } },
    };
    const env = { GRIDGATE_SECRET: randomBytes(32).toString('hex'), CONTAINERS_CONF };
    const killed = startNodeServer(config, env);
    servers.push(killed);
    await newSession(await killed.url);
    killed.child.kill('SIGKILL');
    await killed.exited;
    // Nobody removed it: the killed server was its only owner. Its DevTools door stays open too.
    const [container] = containersOfPool(pool);
    expect(doorOf(container as string)).toEqual({ named: true, pasta: true });

    const next = startNodeServer(config, env);
    servers.push(next);
    await next.url;
    expect(containersOfPool(pool)).toEqual([]);
    await eventually(() => expect(doorOf(container as string)).toEqual({ named: false, pasta: false }));
    expect(next.lines.find((line) => line.event === 'ORPHANS_REMOVED' && 'containers' in line)).toMatchObject(
      {
        containers: 1,
      },
    );
  });
});
