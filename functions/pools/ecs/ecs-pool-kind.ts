/** The ecs pool kind: one Fargate (Spot) task per session, running a Selenium node. */
import type { PoolKind } from '../pool-kind';
import { checkEcsPool } from './ecs-pool-check';
import { ecsKept, ecsRecordingPlaces, ecsRecordings, ecsRecordsVideo } from './ecs-recordings';
import { ecsStoredWarmCount } from './ecs-stored-warm-count';
import { warmTaskTable } from './warm-task-table';

export const ecsPoolKind: PoolKind<'ecs'> = {
  name: 'ecs',
  traits: { remoteEnd: 'browser', boundToItsHead: false, recordsVideo: ecsRecordsVideo },
  // Most of a router Lambda's invocations are commands, which never need ECS, and evaluating the SDK is a
  // large part of a cold start (bench/README.md, router Lambda): it loads with the first new session.
  load: async () => (await import('./ecs-runtime')).makeEcsRuntime,
  beforeLoad: ({ config, aws, deployment, poolOf }) => {
    const artifacts = ecsRecordings(ecsRecordingPlaces(deployment), poolOf, aws.logsClient);
    return {
      // Heads sharing a DynamoDB table count the warm tasks kept there, so /status never loads the ECS SDK.
      parts: { warm: ecsStoredWarmCount((table) => aws.warmTasks(table), warmTaskTable(config)) },
      // Videos in the recordings bucket, browser logs in the browsers' log group.
      ...(artifacts ? { artifacts } : {}),
    };
  },
  kept: ecsKept,
  undeployedSettings: checkEcsPool,
  // Tasks outlive the router that started them: the cleanup stops those no session holds, and keeps warm ones.
  cleanup: { load: async () => (await import('./ecs-cleanup')).makeEcsCleanup },
};
