/**
 * `npm start` with two worker processes (a child process, as users run it) in front of a fake W3C hub:
 * quotas hold across workers (one slot ledger), activity through one worker keeps a session alive for
 * all, a worker killed mid-command is replaced and loses nothing (its replacement refuses the sessions
 * that ended before it started), one client's sign-ins under way are bounded once for the whole server,
 * SIGTERM ends every session, a reload reaches every worker, and /metrics and /ping add up the whole
 * server. Connections are pinned to a chosen worker by asking the kernel which process serves them
 * (test/support/serving-process.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it } from 'vitest';
import { W3C_CHROME } from '../support/fake-grid';
import { type FakeAnswer, FakeUpstream } from '../support/fakes';
import { type NodeServerProcess, startNodeServer } from '../support/node-server-process';
import { OneConnection, servingPid } from '../support/serving-process';
import { eventually } from './served-fake-grid';

const WORKERS = 2;
let server: NodeServerProcess | undefined;
let hub: FakeUpstream | undefined;
const connections: OneConnection[] = [];
afterEach(async () => {
  for (const connection of connections.splice(0)) connection.close();
  server?.dispose();
  await hub?.close();
  server = hub = undefined;
});

function hubConfig(upstream: FakeUpstream, maxSessions: number, extra: Record<string, unknown> = {}) {
  return {
    port: 0,
    host: '127.0.0.1',
    workers: WORKERS,
    browsers: { chrome: { defaultVersion: '1.0', versions: { '1.0': { pools: ['hub'] } } } },
    pools: { hub: { kind: 'hub', url: `http://${upstream.address}`, maxSessions } },
    ...extra,
  };
}

/** The worker processes serving now, by the server's own log. */
function workerPids(running: NodeServerProcess): number[] {
  const exited = new Set(running.lines.filter((l) => l.event === 'WORKER_EXITED').map((l) => l.pid));
  return running.lines
    .filter((line) => line.event === 'WORKER_STARTED' && !exited.has(line.pid))
    .map((line) => line.pid as number);
}

async function start(config: unknown): Promise<string> {
  server = startNodeServer(config);
  const url = await server.url;
  const running = server;
  await eventually(() => expect(workerPids(running)).toHaveLength(WORKERS), 30_000);
  return url;
}

/** A kept-alive connection that the worker `pid` serves (connections are dealt out in turn). */
async function connectionTo(url: string, pid: number): Promise<OneConnection> {
  const port = Number(new URL(url).port);
  for (let attempt = 0; attempt < 20; attempt++) {
    const connection = new OneConnection(url);
    connections.push(connection);
    await connection.send('GET', '/status');
    if (servingPid(workerPids(server as NodeServerProcess), port, connection.localPort ?? 0) === pid) {
      return connection;
    }
    connection.close();
  }
  throw new Error(`no connection reached worker ${pid}`);
}

async function newSession(connection: OneConnection): Promise<string> {
  const answer = await connection.send('POST', '/session', W3C_CHROME);
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.body) as { value: { sessionId: string } }).value.sessionId;
}

async function inUse(url: string): Promise<number> {
  const status = (await (await fetch(`${url}/status`)).json()) as { value: { pools: { inUse: number }[] } };
  return status.value.pools.reduce((sum, pool) => sum + pool.inUse, 0);
}

const errorOf = (body: string) => (JSON.parse(body) as { value: { error: string; message: string } }).value;

describe('the Node server with two worker processes', () => {
  it('takes exactly the quota in a 20-way race and refuses the rest, as one process does', async () => {
    hub = await FakeUpstream.start();
    const url = await start(hubConfig(hub, 5, { timeouts: { queue: '0s' } }));
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => {
        const connection = new OneConnection(url);
        connections.push(connection);
        return connection.send('POST', '/session', W3C_CHROME);
      }),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(5);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused).toHaveLength(15);
    for (const answer of refused) expect(errorOf(answer.body).error).toBe('session not created');
    expect(hub.sessionIds).toHaveLength(5);
    expect(await inUse(url)).toBe(5);
  }, 60_000);

  it('queues a 20-way race past the quota and never holds more than the quota at once', async () => {
    hub = await FakeUpstream.start();
    const url = await start(hubConfig(hub, 5, { timeouts: { queue: '60s' } }));
    // Each client ends its session as soon as it has one, so every queued request gets in in turn.
    const clients = Array.from({ length: 20 }, async () => {
      const connection = new OneConnection(url);
      connections.push(connection);
      const id = await newSession(connection);
      expect((await connection.send('DELETE', `/session/${id}`)).status).toBe(200);
    });
    await Promise.all(clients);
    expect(hub.sessionIds).toHaveLength(20);
    let held = 0;
    let most = 0;
    for (const request of hub.requests) {
      if (request.method === 'POST' && request.path === '/session') most = Math.max(most, ++held);
      if (request.method === 'DELETE') held--;
    }
    expect(most).toBeLessThanOrEqual(5);
    expect(await inUse(url)).toBe(0);
  }, 120_000);

  it('keeps a session alive with commands through one worker only, and every worker refuses it once it timed out', async () => {
    hub = await FakeUpstream.start();
    const url = await start(hubConfig(hub, 2, { timeouts: { idle: '3s' } }));
    const [first, second] = workerPids(server as NodeServerProcess) as [number, number];
    const viaFirst = await connectionTo(url, first);
    const viaSecond = await connectionTo(url, second);
    const id = await newSession(viaFirst);
    // Three idle timeouts of commands, all through the other worker: time passing is what is tested, a
    // command every half second keeping the session alive past what its idle timeout would allow.
    for (let i = 0; i < 18; i++) {
      expect((await viaSecond.send('GET', `/session/${id}/title`)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect((await viaFirst.send('GET', `/session/${id}/title`)).status).toBe(200);
    expect(server?.lines.some((line) => line.event === 'SESSION_TIMED_OUT')).toBe(false);
    // Without commands it times out, and both workers say so (the hub itself would still answer).
    const running = server as NodeServerProcess;
    await eventually(() => {
      expect(running.lines.some((line) => line.event === 'SESSION_TIMED_OUT')).toBe(true);
    }, 20_000);
    // Told by the primary as it ends it, a moment later.
    await eventually(async () => {
      for (const connection of [viaFirst, viaSecond]) {
        const answer = await connection.send('GET', `/session/${id}/title`);
        expect(answer.status).toBe(404);
        expect(errorOf(answer.body).message).toMatch(/idle timeout/);
      }
    });
    expect(await inUse(url)).toBe(0);
  }, 60_000);

  it('replaces a worker killed mid-command; its sessions go on through the other, and SIGTERM ends them all', async () => {
    hub = await FakeUpstream.start();
    const url = await start(hubConfig(hub, 4));
    const answer = hub.respond;
    // Commands for the title are never answered: a command in flight when the worker dies.
    hub.respond = (request) =>
      request.path.endsWith('/title') ? new Promise<FakeAnswer>(() => {}) : answer(request);
    const [doomed, survivor] = workerPids(server as NodeServerProcess) as [number, number];
    const viaDoomed = await connectionTo(url, doomed);
    const viaSurvivor = await connectionTo(url, survivor);
    const ids = [await newSession(viaDoomed), await newSession(viaSurvivor)];
    const inFlight = viaDoomed.send('GET', `/session/${ids[0]}/title`);
    await eventually(() => expect(hub?.requests.some((r) => r.path.endsWith('/title'))).toBe(true));
    process.kill(doomed, 'SIGKILL');
    await expect(inFlight).rejects.toThrow();
    for (const id of ids) expect((await viaSurvivor.send('GET', `/session/${id}/url`)).status).toBe(200);
    const running = server as NodeServerProcess;
    await eventually(() => {
      expect(workerPids(running)).toHaveLength(WORKERS);
      expect(workerPids(running)).not.toContain(doomed);
    }, 30_000);
    expect(running.lines.find((l) => l.event === 'WORKER_EXITED')).toMatchObject({
      pid: doomed,
      signal: 'SIGKILL',
      replaced: true,
    });
    // No slot lost and none left over: the two sessions, and a third fits beside them.
    expect(await inUse(url)).toBe(2);
    const pids = workerPids(running);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    const deleted = hub.requests.filter((r) => r.method === 'DELETE').map((r) => r.path);
    expect(deleted.sort()).toEqual(hub.sessionIds.map((id) => `/session/${id}`).sort());
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  }, 90_000);

  it('refuses, through a worker that replaced a killed one, a session deleted before it started', async () => {
    hub = await FakeUpstream.start();
    const url = await start(hubConfig(hub, 2));
    const running = server as NodeServerProcess;
    const [doomed, other] = workerPids(running) as [number, number];
    const id = await newSession(await connectionTo(url, other));
    const upstreamId = hub.sessionIds[0] as string;
    expect((await (await connectionTo(url, doomed)).send('DELETE', `/session/${id}`)).status).toBe(200);
    process.kill(doomed, 'SIGKILL');
    await eventually(() => {
      expect(workerPids(running)).toHaveLength(WORKERS);
      expect(workerPids(running)).not.toContain(doomed);
    }, 30_000);
    const replacement = workerPids(running).find((pid) => pid !== other) as number;
    // The fake hub would answer 200 for any session: only the grid's own refusal gives a 404 here.
    const answer = await (await connectionTo(url, replacement)).send('GET', `/session/${id}/url`);
    expect(answer.status).toBe(404);
    expect(errorOf(answer.body)).toMatchObject({
      error: 'invalid session id',
      message: 'session ended: it was deleted',
    });
    expect(hub.requests.filter((r) => r.path.startsWith(`/session/${upstreamId}/`))).toEqual([]);
  }, 60_000);

  it("bounds one client's sign-ins under way once for the whole server, not once in each worker", async () => {
    // bcrypt at cost 13: a check takes about a second, so every guess below is under way at once.
    const dir = mkdtempSync(join(tmpdir(), 'gridgate-workers-users-'));
    const usersFile = join(dir, 'users.htpasswd');
    writeFileSync(usersFile, `alice:${bcrypt.hashSync('alice-pw', 13)}\n`);
    try {
      hub = await FakeUpstream.start();
      const url = await start(hubConfig(hub, 2, { usersFile, guest: null }));
      const [first, second] = workerPids(server as NodeServerProcess) as [number, number];
      // The server's default: 4 checks one client may have under way. Twice that, half through each worker.
      const via = [];
      for (let i = 0; i < 4; i++) via.push(await connectionTo(url, first), await connectionTo(url, second));
      const answers = await Promise.all(
        via.map((connection, n) =>
          connection.send('GET', '/session/any/url', undefined, {
            authorization: `Basic ${Buffer.from(`alice:wrong-${n}`).toString('base64')}`,
          }),
        ),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([401, 401, 401, 401, 429, 429, 429, 429]);
      for (const answer of answers.filter((a) => a.status === 429)) {
        expect(errorOf(answer.body).message).toMatch(/too many sign-ins from this address/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('applies a reload in every worker, on SIGHUP and when the file changes', async () => {
    hub = await FakeUpstream.start();
    const config = hubConfig(hub, 2);
    const url = await start(config);
    const running = server as NodeServerProcess;
    const [first, second] = workerPids(running) as [number, number];
    const via = [await connectionTo(url, first), await connectionTo(url, second)];
    const id = await newSession(via[0] as OneConnection);
    const statuses = () =>
      Promise.all(via.map(async (c) => (await c.send('GET', `/session/${id}/url`)).status));
    expect(await statuses()).toEqual([200, 200]);
    const reloads = () => running.lines.filter((line) => line.event === 'CONFIG_RELOADED').length;
    // No guest any more: the workers check credentials themselves, so each must have the new config.
    writeFileSync(running.configFile, JSON.stringify({ ...config, guest: null }));
    running.child.kill('SIGHUP');
    await eventually(() => expect(reloads()).toBe(1), 20_000);
    // The primary passes the reloaded config on as it logs it: each worker has it a moment later.
    await eventually(async () => expect(await statuses()).toEqual([401, 401]));
    writeFileSync(running.configFile, JSON.stringify(config));
    await eventually(() => expect(reloads()).toBe(2), 20_000);
    expect(running.lines.filter((l) => l.event === 'CONFIG_RELOADED').map((l) => l.trigger)).toEqual([
      'SIGHUP',
      'file changed',
    ]);
    await eventually(async () => expect(await statuses()).toEqual([200, 200]));
  }, 60_000);

  it("answers /metrics and /ping for the whole server, and the scrape passes promtool's check", async () => {
    hub = await FakeUpstream.start();
    const url = await start(hubConfig(hub, 2));
    const running = server as NodeServerProcess;
    const [first, second] = workerPids(running) as [number, number];
    const via = [await connectionTo(url, first), await connectionTo(url, second)] as const;
    const ids = [await newSession(via[0]), await newSession(via[1])];
    for (let i = 0; i < 3; i++) {
      for (const [n, connection] of via.entries()) {
        expect((await connection.send('GET', `/session/${ids[n]}/url`)).status).toBe(200);
      }
    }
    // ggr's numRequests: the two new sessions (the primary's) and six commands (the workers').
    await eventually(async () => {
      const ping = (await (await fetch(`${url}/ping`)).json()) as {
        numRequests: number;
        numSessions: number;
      };
      expect(ping).toMatchObject({ numRequests: 8, numSessions: 2 });
    });
    // Each worker finds its session's browser gone: one upstream error in each, both in the one scrape.
    await hub.close();
    for (const [n, connection] of via.entries()) {
      const answer = await connection.send('GET', `/session/${ids[n]}/url`);
      expect(errorOf(answer.body).error).toBe('invalid session id');
    }
    await eventually(async () => expect(await inUse(url)).toBe(0));
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toMatch(/^gridgate_upstream_errors_total\{pool="hub"\} 2$/m);
    expect(text).toMatch(/^gridgate_sessions_created_total\{[^}]*pool="hub"[^}]*\} 2$/m);
    const commands = Number(/^gridgate_commands_total\{pool="hub"\} (\d+)$/m.exec(text)?.[1]);
    expect(commands).toBeGreaterThanOrEqual(6);
    expect(commands).toBeLessThanOrEqual(8);
    expect(text).toMatch(/^gridgate_sessions_active\{pool="hub"\} 0$/m);
    expect(execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })).toBe('');
  }, 60_000);
});
