/**
 * Two router heads on one DynamoDB table (dynalite on loopback), one of them killed (SIGKILL) while it
 * creates a session: the slot it took has no session and never will, and the other head frees it on its
 * own (its stale-slot sweep), so the pool serves at full size again without the cleanup Lambda, and the
 * hub session the killed head asked for, whose ID no head knows, is found in the hub's /status by the key
 * it was asked under and ended there. The killed head is `npm start` pointed at the table as docs/heads.md
 * says (AWS_ENDPOINT_URL_DYNAMODB, GRIDGATE_SECRET); the other is `startGrid` in this process, with its
 * sweeps shortened. A hub pool on a fake remote end that lists its sessions in /status as Selenium Grid 4
 * does (with the capabilities each was asked for), and whose first new session hangs, stands in for browsers.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoSessionStore } from '../../functions/adapters/aws/dynamo-session-store';
import { type RunningGrid, startGrid } from '../../functions/entry/start-grid';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../support/dynalite';
import { jsonRequest, W3C_CHROME } from '../support/fake-grid';
import {
  CollectingLogger,
  type FakeAnswer,
  FakeUpstream,
  jsonAnswer,
  type RecordedRequest,
} from '../support/fakes';
import { type NodeServerProcess, startNodeServer } from '../support/node-server-process';
import { configWithOnePool } from '../support/one-pool-config';
import { warmStatusAdapters } from '../support/warm-status-adapters';
import { eventually } from './served-fake-grid';

const SECRET = randomBytes(24).toString('hex');

let dynamo: DynaliteServer;
let table: SessionTableUnderTest;
let hub: FakeUpstream;
let killed: NodeServerProcess | undefined;
let survivor: RunningGrid | undefined;
/** Answers the new session the hub is holding. */
let answerHeld: () => void = () => {};

/** Set: the next new session hangs until answerHeld(); the others are answered at once. */
let holdNext = false;

/** The hub's running sessions: the capabilities each was asked for, by its ID. */
let hubSessions = new Map<string, Record<string, unknown>>();

async function hubNewSession(request: RecordedRequest): Promise<FakeAnswer> {
  const asked = (JSON.parse(request.body) as { capabilities: { alwaysMatch: Record<string, unknown> } })
    .capabilities.alwaysMatch;
  const start = () => {
    const sessionId = randomUUID();
    hubSessions.set(sessionId, asked);
    return jsonAnswer(200, {
      value: { sessionId, capabilities: { browserName: 'chrome', browserVersion: '156.0' } },
    });
  };
  if (!holdNext) return start();
  holdNext = false;
  return new Promise((resolve) => {
    answerHeld = () => resolve(start());
  });
}

/** Selenium Grid 4's /status (one node, a slot per running session) and DELETE; other commands `null`. */
function hubCommand(request: RecordedRequest): FakeAnswer {
  if (request.method === 'GET' && request.path === '/status') {
    const slots = [...hubSessions].map(([sessionId, capabilities]) => ({
      session: { sessionId, capabilities: { ...capabilities, browserVersion: '156.0' } },
    }));
    return jsonAnswer(200, { value: { ready: true, nodes: [{ slots: [...slots, { session: null }] }] } });
  }
  const deleted = /^\/session\/([^/]+)$/.exec(request.path);
  if (request.method === 'DELETE' && deleted) hubSessions.delete(deleted[1] as string);
  return jsonAnswer(200, { value: null });
}

beforeEach(async () => {
  [dynamo, hub] = await Promise.all([startDynalite(), FakeUpstream.start({ newSession: hubNewSession })]);
  hub.respond = hubCommand;
  table = await dynamo.createSessionTable();
});
afterEach(async () => {
  killed?.dispose();
  answerHeld();
  await survivor?.close();
  await table.close();
  await Promise.all([dynamo.close(), hub.close()]);
  killed = survivor = undefined;
  holdNext = false;
  hubSessions = new Map();
});

describe('heads sharing a DynamoDB table', { timeout: 90_000 }, () => {
  it('leave a hub session running when the head that created it shuts down', async () => {
    const settings = {
      port: 0,
      host: '127.0.0.1',
      store: { kind: 'dynamodb', table: table.table },
      timeouts: { queue: '0s' },
    };
    const config = configWithOnePool(
      'hub',
      { kind: 'hub', url: `http://${hub.address}`, maxSessions: 2 },
      settings,
    );
    const store = new DynamoSessionStore({ client: dynamo.newClient(), table: table.table });
    const { aws } = warmStatusAdapters(undefined as never, { sessionStore: async () => store });
    const start = () =>
      startGrid(config, Buffer.from(SECRET), new CollectingLogger(), { aws, reloadPollMs: 0, sweepMs: 100 });
    const [leaving, staying] = await Promise.all([start(), start()]);
    survivor = staying;
    const created = await fetch(`${leaving.url}/session`, jsonRequest('POST', W3C_CHROME));
    const { sessionId } = ((await created.json()) as { value: { sessionId: string } }).value;

    await leaving.close();
    expect(hub.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    expect((await fetch(`${staying.url}/session/${sessionId}/title`)).status).toBe(200);
    expect(await store.inUse()).toEqual({ hub: 1 });
    // Ended through the other head, it ends at the hub once.
    expect((await fetch(`${staying.url}/session/${sessionId}`, { method: 'DELETE' })).status).toBe(200);
    expect(hub.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
    expect(await store.inUse()).toEqual({});
  });

  it('free the slot and end the hub session of a head killed while it created a session', async () => {
    const settings = {
      port: 0,
      host: '127.0.0.1',
      store: { kind: 'dynamodb', table: table.table },
      timeouts: { queue: '0s', newSession: '3s' },
    };
    const pool = { kind: 'hub', url: `http://${hub.address}`, maxSessions: 1 };
    killed = startNodeServer(
      {
        ...settings,
        browsers: { chrome: { defaultVersion: '156', versions: { '156': { pools: ['hub'] } } } },
        pools: { hub: pool },
      },
      {
        AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        GRIDGATE_SECRET: SECRET,
      },
    );
    const store = new DynamoSessionStore({ client: dynamo.newClient(), table: table.table });
    const { aws } = warmStatusAdapters(undefined as never, { sessionStore: async () => store });
    survivor = await startGrid(
      configWithOnePool('hub', pool, settings),
      Buffer.from(SECRET),
      new CollectingLogger(),
      {
        aws,
        reloadPollMs: 0,
        sweepMs: 100,
        staleSlotGraceMs: 0,
      },
    );

    holdNext = true;
    // The new session reaches the hub through the first head, which holds the pool's one slot meanwhile.
    const creating = fetch(`${await killed.url}/session`, jsonRequest('POST', W3C_CHROME)).then(
      (response) => response.status,
      () => 'connection closed',
    );
    await eventually(() =>
      expect(hub.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /session']),
    );
    expect(await store.inUse()).toEqual({ hub: 1 });
    killed.child.kill('SIGKILL');
    expect(await killed.exited).toBe(null);
    // The head's worker process that relayed the request outlives its primary for a moment: it says 502.
    expect(['connection closed', 502]).toContain(await creating);
    // The hub goes on to start the session it was asked for; its answer reaches nobody.
    answerHeld();
    await eventually(() => expect(hubSessions.size).toBe(1));
    const [orphan] = [...hubSessions.keys()];

    // Past the new-session timeout no session can come for that slot: the surviving head frees it, and
    // ends the hub's session it finds asked for under that slot's key.
    await eventually(async () => expect(await store.inUse()).toEqual({}), 30_000);
    expect(hub.requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([
      `/session/${orphan}`,
    ]);
    expect(hubSessions.size).toBe(0);
    const created = await fetch(`${survivor.url}/session`, jsonRequest('POST', W3C_CHROME));
    expect(created.status).toBe(200);
    const { sessionId } = ((await created.json()) as { value: { sessionId: string } }).value;
    expect((await fetch(`${survivor.url}/session/${sessionId}`, { method: 'DELETE' })).status).toBe(200);
    expect(await store.inUse()).toEqual({});
  });
});
