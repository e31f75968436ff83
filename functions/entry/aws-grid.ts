/**
 * Wires the router Lambda: its config, signing secret, EMF metrics, DynamoDB store, and where the stack keeps
 * sessions' recordings (GRIDGATE_DEPLOYMENT), given to the one wiring (grid-wiring.ts). Built once per Lambda
 * environment.
 */
import type { Dispatcher } from 'undici';
import { HtpasswdUserDirectory } from '../adapters/htpasswd/htpasswd-user-directory';
import { JsonLogger } from '../adapters/stdout/json-logger';
import { isHubOrigin } from '../core/browser-network';
import type { GridDeps } from '../core/grid-deps';
import { systemClock } from '../core/ports';
import type { RuntimeMakers } from '../pools';
import { createUpstreamAgent } from '../webdriver-client/upstream-client';
import { type AwsAdapters, awsAdapters } from './aws-adapters';
import { readDeployedConfig } from './deployed-config';
import { gridDeps, poolKindsOf } from './grid-wiring';
import { signingSecret } from './signing-secret';

export interface AwsGrid {
  deps: GridDeps;
  /** The HTTP client for browsers, shared by the app and the ECS launcher's readiness checks. */
  agent: Dispatcher;
}

export async function awsGrid(
  env: NodeJS.ProcessEnv = process.env,
  adapters: AwsAdapters = awsAdapters,
  /** Runtime makers in place of what pool kinds' `load()` answers; tests give their fakes. */
  makers?: RuntimeMakers,
): Promise<AwsGrid> {
  const logger = new JsonLogger();
  const config = readDeployedConfig(env);
  // Every Lambda environment must verify every other's session IDs: no per-process key here.
  const secret = await signingSecret(env, { fallback: 'none', read: adapters.secret });
  const agent = createUpstreamAgent((origin) => isHubOrigin(config.pools, origin));
  const metrics = await adapters.metrics();
  const deps: GridDeps = await gridDeps({
    config,
    secret,
    logger,
    metrics,
    sessions: await adapters.sessionStore((config.store as { table: string }).table, logger),
    agent,
    aws: adapters,
    // Where the stack keeps recordings: ecs sessions' videos and browser logs, eks pools' buckets.
    deployment: env.GRIDGATE_DEPLOYMENT,
    makers,
    // A Lambda environment's config never changes: only its pools' kinds get a launcher.
    kinds: poolKindsOf(config),
    // A Lambda environment serves one request at a time: a check on its event loop holds up nobody.
    users: config.usersFile
      ? HtpasswdUserDirectory.open(config.usersFile, { clock: systemClock, logger, threads: 0 })
      : undefined,
    // Behind the CDK app's default front door: API Gateway REST, then the router Lambda.
    requestPricing: { frontDoor: 'rest', lambda: true },
  });
  return { deps, agent };
}
