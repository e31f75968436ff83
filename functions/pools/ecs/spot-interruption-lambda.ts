/**
 * The Fargate Spot interruption Lambda: EventBridge "ECS Task State Change" events, one at a time. The ecs
 * kind's own entry (only ECS sends them), wired as the other background Lambdas are (entry/aws-job-wiring.ts).
 */
import { systemClock } from '../../core/ports';
import { jobWiring } from '../../entry/aws-job-wiring';
import {
  handleTaskStateChange,
  type InterruptionOutcome,
  type TaskStateChangeEvent,
} from './spot-interruption';

const { config, sessions, logger, metrics } = jobWiring('interruption');

export async function handler(event: TaskStateChangeEvent): Promise<InterruptionOutcome> {
  return handleTaskStateChange({ sessions, metrics, logger, clock: systemClock, config }, event);
}
