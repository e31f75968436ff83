/** The Fargate Spot interruption Lambda: EventBridge "ECS Task State Change" events, one at a time. */
import {
  handleTaskStateChange,
  type InterruptionOutcome,
  type TaskStateChangeEvent,
} from '../adapters/aws/spot-interruption';
import { systemClock } from '../core/ports';
import { jobWiring } from './aws-job-wiring';

const { config, sessions, logger, metrics } = jobWiring('interruption');

export async function handler(event: TaskStateChangeEvent): Promise<InterruptionOutcome> {
  return handleTaskStateChange({ sessions, metrics, logger, clock: systemClock, config }, event);
}
