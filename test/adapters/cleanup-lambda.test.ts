/**
 * The background Lambdas' wiring (aws-job-wiring.ts), and one cleanup pass as the cleanup Lambda runs it:
 * the DynamoDB session store on dynalite, ECS on aws-sdk-client-mock.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StopTaskCommand } from '@aws-sdk/client-ecs';
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoSessionStore } from '../../functions/adapters/aws/dynamo-session-store';
import { ConfigError } from '../../functions/core/config';
import { noMetrics } from '../../functions/core/ports';
import { runOrphanCleanup } from '../../functions/entry/aws-cleanup';
import { jobWiring } from '../../functions/entry/aws-job-wiring';
import { STARTED_BY } from '../../functions/pools/ecs/task-tags';
import { sampleRecord } from '../contract/store-samples';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../support/dynalite';
import { EcsTasksMock, gridgateTags } from '../support/ecs-tasks-mock';
import { CollectingLogger, FixedClock } from '../support/fakes';

const MINUTE = 60_000;
let directory: string;
let dynamo: DynaliteServer;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'gridgate-cleanup-'));
  dynamo = await startDynalite();
});
afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
  await dynamo.close();
});

function configFile(store: object, name = 'gridgate.json'): string {
  const path = join(directory, name);
  writeFileSync(
    path,
    JSON.stringify({
      browsers: { chrome: { versions: { '156': { pools: ['chrome'] } } } },
      pools: {
        chrome: {
          kind: 'ecs',
          cluster: 'gridgate-browsers',
          taskDefinition: 'gridgate-chrome',
          subnets: ['subnet-1'],
          securityGroups: ['sg-1'],
          networks: ['10.0.0.0/16'],
        },
      },
      store,
    }),
  );
  return path;
}

describe('jobWiring', () => {
  const unused = () => dynamo.newClient();

  it('needs GRIDGATE_CONFIG', () => {
    expect(() => jobWiring('cleanup', {}, unused)).toThrow(ConfigError);
  });

  it('refuses a config whose sessions are not in DynamoDB, naming the key', () => {
    const path = configFile({ kind: 'memory' }, 'memory.json');
    expect(() => jobWiring('cleanup', { GRIDGATE_CONFIG: path }, unused)).toThrow(/store: .*"dynamodb"/);
  });

  it('reads DRY_RUN as true or false and refuses anything else', () => {
    const path = configFile({ kind: 'dynamodb', table: 'sessions' }, 'dry.json');
    expect(jobWiring('cleanup', { GRIDGATE_CONFIG: path }, unused).dryRun).toBe(false);
    expect(jobWiring('cleanup', { GRIDGATE_CONFIG: path, DRY_RUN: 'true' }, unused).dryRun).toBe(true);
    expect(jobWiring('cleanup', { GRIDGATE_CONFIG: path, DRY_RUN: 'false' }, unused).dryRun).toBe(false);
    expect(() => jobWiring('cleanup', { GRIDGATE_CONFIG: path, DRY_RUN: 'yes' }, unused)).toThrow(/DRY_RUN/);
  });

  it('reads CLEANUP_INTERVAL, the schedule warm pools are sized by, and refuses what is not a duration', () => {
    const path = configFile({ kind: 'dynamodb', table: 'sessions' }, 'interval.json');
    expect(jobWiring('cleanup', { GRIDGATE_CONFIG: path }, unused).warm.intervalMs).toBeUndefined();
    expect(
      jobWiring('cleanup', { GRIDGATE_CONFIG: path, CLEANUP_INTERVAL: '5m' }, unused).warm.intervalMs,
    ).toBe(300_000);
    expect(() => jobWiring('cleanup', { GRIDGATE_CONFIG: path, CLEANUP_INTERVAL: 'hourly' }, unused)).toThrow(
      /CLEANUP_INTERVAL/,
    );
  });

  it('reads the recordings bucket and its Region from GRIDGATE_DEPLOYMENT, where unkept videos are deleted', () => {
    const path = configFile({ kind: 'dynamodb', table: 'sessions' }, 'recordings.json');
    const deployment = { recordingsBucket: 'gridgate-recordingsbucket-1a2b3c4d', region: 'eu-west-1' };
    expect(
      jobWiring('cleanup', { GRIDGATE_CONFIG: path, GRIDGATE_DEPLOYMENT: JSON.stringify(deployment) }, unused)
        .recordings,
    ).toEqual({ bucket: 'gridgate-recordingsbucket-1a2b3c4d', region: 'eu-west-1' });
    expect(jobWiring('cleanup', { GRIDGATE_CONFIG: path }, unused).recordings).toBeUndefined();
  });
});

describe('a cleanup pass with the DynamoDB session store', () => {
  let table: SessionTableUnderTest;
  let ecs: EcsTasksMock;
  afterEach(async () => {
    ecs.restore();
    await table.close();
  });

  it('stops orphans, ends records whose task is gone, frees slots, and finds nothing new the next pass', async () => {
    table = await dynamo.createSessionTable();
    ecs = new EcsTasksMock();
    const path = configFile({ kind: 'dynamodb', table: table.table }, 'dynamo.json');
    const { config, sessions } = jobWiring('cleanup', { GRIDGATE_CONFIG: path }, () => table.client);
    // The store filters expired items by the real clock, so this world is set at the real time.
    const now = Date.now();
    const clock = new FixedClock(now);
    const claim = { pool: 'chrome', poolLimit: 10, user: 'guest' };

    const live = ecs.add({
      cluster: 'gridgate-browsers',
      createdAt: now - 5 * MINUTE,
      startedBy: STARTED_BY,
      tags: gridgateTags('live', 'chrome', now - 5 * MINUTE),
    });
    await sessions.acquire('live', claim);
    await sessions.add(
      sampleRecord('live', { pool: 'chrome', handle: live.id, createdAt: now - 4 * MINUTE }),
    );
    const halfMade = ecs.add({
      cluster: 'gridgate-browsers',
      createdAt: now - 5 * MINUTE,
      startedBy: STARTED_BY,
      tags: gridgateTags('half-made', 'chrome', now - 5 * MINUTE),
    });
    await sessions.acquire('half-made', claim);
    await sessions.acquire('vanished', claim);
    await sessions.add(
      sampleRecord('vanished', {
        pool: 'chrome',
        handle: 'feedfacefeedfacefeedfacefeedface',
        createdAt: now - MINUTE,
      }),
    );

    const deps = {
      ecs: ecs.client(),
      sessions,
      config,
      logger: new CollectingLogger(),
      metrics: noMetrics,
      clock,
    };
    const report = await runOrphanCleanup(deps);
    expect(report.reaped).toEqual({ 'no session': 1, 'browser exited': 1 });
    expect(ecs.inputs(StopTaskCommand).map((input) => input.task)).toEqual([halfMade.id]);
    expect(await sessions.get('vanished')).toMatchObject({ endReason: 'browser exited', endedAt: now });
    expect((await sessions.running()).map((record) => record.key)).toEqual(['live']);
    expect(await sessions.inUse()).toEqual({ chrome: 1 });

    const again = await runOrphanCleanup(deps);
    expect(again.total).toBe(0);
    expect(ecs.inputs(StopTaskCommand)).toHaveLength(1);
  });
});

describe('the Lambda entries', () => {
  let table: SessionTableUnderTest;
  let ecs: EcsTasksMock;
  afterEach(async () => {
    vi.unstubAllEnvs();
    ecs.restore();
    await table.close();
  });

  /** The environment a deployed function has, its DynamoDB endpoint on the loopback dynalite. */
  async function deployed() {
    table = await dynamo.createSessionTable();
    ecs = new EcsTasksMock();
    vi.stubEnv('GRIDGATE_CONFIG', configFile({ kind: 'dynamodb', table: table.table }, 'deployed.json'));
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAFAKEFAKEFAKEFAKE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'fake-secret');
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamo.endpoint);
    vi.resetModules();
    return new DynamoSessionStore({ client: table.client, table: table.table });
  }

  it('the cleanup handler runs a dry pass when the event asks for one', async () => {
    await deployed();
    const orphan = ecs.add({
      cluster: 'gridgate-browsers',
      createdAt: Date.now() - 5 * MINUTE,
      startedBy: STARTED_BY,
      tags: gridgateTags('half-made', 'chrome', Date.now() - 5 * MINUTE),
    });
    const { handler } = await import('../../functions/entry/cleanup-lambda');
    const context = { getRemainingTimeInMillis: () => 60_000 } as Context;
    const report = await handler({ dryRun: true }, context);
    expect(report).toMatchObject({ dryRun: true, reaped: { 'no session': 1 }, deferred: 0 });
    expect(report.items).toEqual([expect.objectContaining({ task: orphan.id })]);
    expect(ecs.inputs(StopTaskCommand)).toEqual([]);
  });

  it('the interruption handler marks the browser reclaimed in the table', async () => {
    const store = await deployed();
    const event = JSON.parse(
      readFileSync(new URL('../pools/ecs/events/ecs-task-state-change-spot.json', import.meta.url), 'utf8'),
    );
    // Delivered now: the store forgets reclaims after an hour, as it does ended sessions.
    const stoppingAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    event.detail.stoppingAt = stoppingAt.toISOString();
    const { handler } = await import('../../functions/entry/interruption-lambda');
    expect(await handler(event)).toMatchObject({
      outcome: 'marked',
      handle: '5d8c2f0e9a7b4c3d8e1f2a3b4c5d6e7f',
    });
    expect(await store.reclaimed('5d8c2f0e9a7b4c3d8e1f2a3b4c5d6e7f')).toEqual({
      at: stoppingAt.getTime(),
      reason: 'SpotInterruption',
    });
  });
});
