/**
 * The real app served on loopback with one ecs pool `fargate`, whose EcsLauncher's real ECSClient talks
 * to the in-process ECS API (fake-ecs-api.ts: each task a real browser on a loopback IP of its own), and a
 * test page server for the browsers to open. Closing it checks that no task's processes outlive it.
 */
import { expect } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import type { Config } from '../../functions/core/config';
import type { GridDeps } from '../../functions/core/grid-deps';
import type { SessionStore, UserDirectory } from '../../functions/core/ports';
import { EcsLauncher, type EcsLauncherOptions } from '../../functions/pools/ecs/ecs-launcher';
import { FakeEcsApi, type FakeEcsOptions } from './fake-ecs-api';
import { CollectingLogger } from './fakes';
import { configWithOnePool } from './one-pool-config';
import { freePortBelowEphemeral, processGroupAlive } from './processes';
import { type ServedApp, serveApp } from './served-app';
import { startTestPageServer, type TestPageServer } from './test-page-server';

export interface FakeFargateGridOptions {
  browser?: FakeEcsOptions['browser'];
  /** The browser container's port (the pool's `port`); @default a free one. */
  containerPort?: number;
  /** Where the tasks' browser containers log (as awslogs does); none: nowhere. */
  awslogs?: FakeEcsOptions['awslogs'];
  /** The task definition the tasks run (a `video` container records); none: the one browser container. */
  taskDefinition?: FakeEcsOptions['taskDefinition'];
  /** What runs the tasks' browser containers; none: loopback processes (fake-ecs-api.ts). */
  containers?: FakeEcsOptions['containers'];
  /** Where a `video` container's uploads go. */
  recorderS3?: FakeEcsOptions['recorderS3'];
  /** Where the app finds sessions' recordings; none: nowhere. */
  artifacts?: GridDeps['artifacts'];
  /** Pool keys over the fake's own settings (maxSessions, warm, …). */
  pool?: Record<string, unknown>;
  /** Config keys beside the pool (timeouts, …). */
  config?: Record<string, unknown>;
  /** @default a memory store */
  sessions?: SessionStore;
  /** Who may sign in, for a config that names a usersFile; none: the config's guest. */
  users?: UserDirectory;
  /** Serve WebSocket upgrades (socket sessions, se:cdp) as the Node server does; @default false */
  webSockets?: boolean;
  /** Launcher options beside the client and the logger (metrics, warm). */
  launcher?: Omit<EcsLauncherOptions, 'ecs' | 'logger'>;
}

export interface FakeFargateGrid {
  fake: FakeEcsApi;
  site: TestPageServer;
  grid: ServedApp;
  config: Config;
  logger: CollectingLogger;
  /** Closes the app, the fake (ending every task's processes) and the page server. */
  close(): Promise<void>;
}

export async function startFakeFargateGrid(options: FakeFargateGridOptions = {}): Promise<FakeFargateGrid> {
  const [fake, site] = await Promise.all([
    FakeEcsApi.start({
      containerPort: options.containerPort ?? (await freePortBelowEphemeral()),
      ...(options.browser ? { browser: options.browser } : {}),
      ...(options.awslogs ? { awslogs: options.awslogs } : {}),
      ...(options.taskDefinition ? { taskDefinition: options.taskDefinition } : {}),
      ...(options.recorderS3 ? { recorderS3: options.recorderS3 } : {}),
      ...(options.containers ? { containers: options.containers } : {}),
    }),
    startTestPageServer(),
  ]);
  const logger = new CollectingLogger();
  const config = configWithOnePool(
    'fargate',
    { ...fake.poolSettings(), ...options.pool },
    { port: 0, host: '127.0.0.1', ...options.config },
  );
  const grid = await serveApp(
    {
      config,
      runtimes: { ecs: { launcher: new EcsLauncher({ ...options.launcher, ecs: fake.client(), logger }) } },
      sessions: options.sessions ?? new MemorySessionStore(),
      logger,
      ...(options.artifacts ? { artifacts: options.artifacts } : {}),
      ...(options.users ? { users: options.users } : {}),
    },
    { webSockets: options.webSockets ?? false },
  );
  return {
    fake,
    site,
    grid,
    config,
    logger,
    async close() {
      // Every process the fake started dies here, whatever a test left behind.
      await grid.close();
      await fake.close();
      await site.close();
      for (const task of fake.tasks.values()) expect(processGroupAlive(task.pid)).toBe(false);
    },
  };
}
