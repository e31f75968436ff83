/**
 * The background Lambdas' wiring (aws-job-wiring.ts), and one cleanup pass as the cleanup Lambda runs it:
 * the DynamoDB session store on dynalite, ECS on aws-sdk-client-mock; its entry loads a kind's part of the
 * cleanup only for a config with pools of that kind.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StopTaskCommand } from '@aws-sdk/client-ecs';
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../functions/core/config';
import { noMetrics } from '../../functions/core/ports';
import { orphanCleanup } from '../../functions/entry/aws-cleanup';
import { jobWiring } from '../../functions/entry/aws-job-wiring';
import { makeEcsCleanup } from '../../functions/pools/ecs/ecs-cleanup';
import { STARTED_BY } from '../../functions/pools/ecs/task-tags';
import { sampleRecord } from '../contract/store-samples';
import { NO_AWS_IDENTITY } from '../support/cleanup-runs';
import { deployJob, ECS_POOL, jobConfigFile } from '../support/deployed-job';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../support/dynalite';
import { EcsTasksMock, gridgateTags } from '../support/ecs-tasks-mock';
import { CollectingLogger, FixedClock } from '../support/fakes';

// Which kinds' parts of the cleanup were made, in order: each kind's maker, which only its `cleanup.load()`
// imports, recording its calls.
const made = vi.hoisted(() => [] as string[]);
vi.mock('../../functions/pools/ecs/ecs-cleanup', async (original) => {
  const real = await original<typeof import('../../functions/pools/ecs/ecs-cleanup')>();
  return {
    makeEcsCleanup: (...args: Parameters<typeof real.makeEcsCleanup>) => {
      made.push('ecs');
      return real.makeEcsCleanup(...args);
    },
  };
});
vi.mock('../../functions/pools/eks/eks-cleanup', async (original) => {
  const real = await original<typeof import('../../functions/pools/eks/eks-cleanup')>();
  return {
    makeEksCleanup: (...args: Parameters<typeof real.makeEksCleanup>) => {
      made.push('eks');
      return real.makeEksCleanup(...args);
    },
  };
});

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

const configFile = (store: object, name?: string) => jobConfigFile(directory, store, name);

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

    const client = ecs.client();
    const run = await orphanCleanup({
      sessions,
      config,
      logger: new CollectingLogger(),
      metrics: noMetrics,
      clock,
      aws: NO_AWS_IDENTITY,
      makers: { ecs: (context) => makeEcsCleanup(context, client) },
    });
    const report = await run();
    expect(report.reaped).toEqual({ 'no session': 1, 'browser exited': 1 });
    expect(ecs.inputs(StopTaskCommand).map((input) => input.task)).toEqual([halfMade.id]);
    expect(await sessions.get('vanished')).toMatchObject({ endReason: 'browser exited', endedAt: now });
    expect((await sessions.running()).map((record) => record.key)).toEqual(['live']);
    expect(await sessions.inUse()).toEqual({ chrome: 1 });

    const again = await run();
    expect(again.total).toBe(0);
    expect(ecs.inputs(StopTaskCommand)).toHaveLength(1);
  });
});

describe('the cleanup Lambda', () => {
  let table: SessionTableUnderTest;
  let ecs: EcsTasksMock;
  afterEach(async () => {
    vi.unstubAllEnvs();
    ecs.restore();
    await table.close();
  });

  it("runs a dry pass when the event asks for one, having made the ecs kind's part alone", async () => {
    table = (await deployJob(dynamo, directory)).table;
    ecs = new EcsTasksMock();
    made.length = 0;
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
    // An ecs-only config: the eks kind's pod API, token signer and log keeper are never made.
    expect(made).toEqual(['ecs']);
  });

  it("makes the eks kind's part too for a config with an eks pool, and sweeps its namespace", async () => {
    // The cluster's API on a loopback port nothing listens on: the listing fails, and the report says so.
    const pods = {
      kind: 'eks',
      cluster: 'browsers',
      endpoint: 'https://127.0.0.1:9',
      networks: ['10.1.0.0/16'],
    };
    table = (await deployJob(dynamo, directory, { chrome: ECS_POOL, pods })).table;
    ecs = new EcsTasksMock();
    made.length = 0;
    const { handler } = await import('../../functions/entry/cleanup-lambda');
    const report = await handler({ dryRun: true });
    expect(made).toEqual(['ecs', 'eks']);
    expect(report.clusters).toEqual([
      expect.objectContaining({ cluster: 'gridgate-browsers', status: 'done' }),
      expect.objectContaining({ cluster: 'browsers/gridgate', status: 'failed' }),
    ]);
  });
});
