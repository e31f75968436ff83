/**
 * The ecs kind's part of the scheduled cleanup: its Fargate tasks as a fleet (ecs-fleet.ts, with the warm
 * pools' work) and the stack's recordings bucket its recorders upload to. The ECS SDK loads here, with the
 * cleanup of a config that has ecs pools.
 */
import { ECSClient } from '@aws-sdk/client-ecs';
import { boundedRequests } from '../../adapters/aws/request-bounds';
import type { CleanupContext, KindCleanup } from '../pool-kind';
import { EcsFleet } from './ecs-fleet';
import { ecsVideoPlace } from './ecs-recordings';

/** `ecs`: the client its calls go through, made once per process; tests give one they answer. */
export async function makeEcsCleanup(context: CleanupContext, ecs = newEcsClient()): Promise<KindCleanup> {
  const { sessions, config, clock, sleep, stopsPerSecond, warm, recordings } = context;
  return {
    fleet: () => new EcsFleet({ ecs, sessions, config, clock, sleep, stopsPerSecond, warm }),
    ...(recordings ? { videoPlace: ecsVideoPlace(recordings) } : {}),
  };
}

// Bounded: a hung connection would otherwise hold the pass until Lambda's timeout ends it mid-way.
function newEcsClient(): ECSClient {
  return new ECSClient({ requestHandler: boundedRequests() });
}
