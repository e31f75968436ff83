/**
 * Two heads on one DynamoDB table (dynalite on loopback) with one container pool: a container runs in the
 * engine of the head that started it, so a session ended on the other head's status page ends the record there,
 * and the owner removes its container within a sweep (not at podman's hard lifetime), as the end asked. Real
 * podman, the chromedriver image.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoSessionStore } from '../../../../functions/adapters/aws/dynamo-session-store';
import { type RunningGrid, startGrid } from '../../../../functions/entry/start-grid';
import type { TestImages } from '../../../../scripts/test-images';
import {
  containerImages,
  containersOfPool,
  removeContainersOfPool,
  uniquePoolName,
} from '../../../support/container-grid';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../../../support/dynalite';
import { CollectingLogger } from '../../../support/fakes';
import { configWithOnePool } from '../../../support/one-pool-config';
import { eventually } from '../../../support/until';
import { warmStatusAdapters } from '../../../support/warm-status-adapters';

const JSON_UTF8 = { 'content-type': 'application/json; charset=utf-8' };
const NEW_SESSION = JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } });

let images: TestImages;
let dynamo: DynaliteServer;
let table: SessionTableUnderTest;
const heads: RunningGrid[] = [];
const pool = uniquePoolName('shared-store');

beforeAll(async () => {
  images = await containerImages();
}, 900_000);

beforeEach(async () => {
  dynamo = await startDynalite();
  table = await dynamo.createSessionTable();
});

afterEach(async () => {
  await Promise.all(heads.splice(0).map((head) => head.close()));
  removeContainersOfPool(pool);
  await table.close();
  await dynamo.close();
});

describe('container sessions on a store heads share', { timeout: 120_000 }, () => {
  it('are removed by the head that started them when another head ends them', async () => {
    const config = configWithOnePool(
      pool,
      { kind: 'container', image: images.chromedriver },
      { port: 0, host: '127.0.0.1', store: { kind: 'dynamodb', table: table.table } },
    );
    const store = new DynamoSessionStore({ client: dynamo.newClient(), table: table.table });
    const { aws } = warmStatusAdapters(undefined as never, { sessionStore: async () => store });
    const secret = randomBytes(32);
    const [ownerLog, otherLog] = [new CollectingLogger(), new CollectingLogger()];
    const start = (logger: CollectingLogger) =>
      startGrid(config, secret, logger, { aws, reloadPollMs: 0, sweepMs: 200 });
    const [owner, other] = await Promise.all([start(ownerLog), start(otherLog)]);
    heads.push(owner, other);

    const created = await fetch(`${owner.url}/session`, {
      method: 'POST',
      headers: JSON_UTF8,
      body: NEW_SESSION,
    });
    expect(created.status).toBe(200);
    const { sessionId } = ((await created.json()) as { value: { sessionId: string } }).value;
    const [container] = containersOfPool(pool);
    expect(container).toBeDefined();

    const check = owner.deps.tokens.verify(sessionId, 'guest');
    if (!check.ok) throw new Error(check.reason);
    const ended = await fetch(`${other.url}/ui/api/sessions/${check.claims.key}`, { method: 'DELETE' });
    expect(ended.status).toBe(200);
    expect(otherLog.lines.find((line) => line.event === 'SESSION_DELETED')).toBeDefined();
    await eventually(() => expect(containersOfPool(pool)).toEqual([]), 10_000);
    // The owner removed it itself: it never saw its container exit under it.
    expect(ownerLog.lines.filter((line) => line.event === 'BROWSER_EXITED')).toEqual([]);
    expect(await store.inUse()).toEqual({});
  });
});
