/**
 * The ecs kind's runtime, loaded with its pools' first browser (ecs-pool-kind.ts): the ECS SDK client, bounded
 * per request, and the launcher, which claims the warm tasks heads sharing a DynamoDB table keep there.
 */
import { ECSClient } from '@aws-sdk/client-ecs';
import { boundedRequests } from '../../adapters/aws/request-bounds';
import type { EcsPoolConfig } from '../../core/config';
import type { KindRuntime, RuntimeContext } from '../pool-kind';
import { EcsLauncher } from './ecs-launcher';
import { warmTaskTable } from './warm-task-table';

export async function makeEcsRuntime(context: RuntimeContext): Promise<KindRuntime<EcsPoolConfig>> {
  const { agent, logger, metrics, aws } = context;
  const warmTable = warmTaskTable(context.config);
  const warm = warmTable === undefined ? undefined : await aws.warmTasks(warmTable);
  const ecs = new ECSClient({ requestHandler: boundedRequests() });
  return { runtime: { launcher: new EcsLauncher({ ecs, agent, logger, metrics, warm }) } };
}
