/** The Fargate Spot interruption Lambda: EventBridge "ECS Task State Change" events, one at a time. */

import { systemClock } from '../core/ports';
import {
  handleTaskStateChange,
  type InterruptionOutcome,
  type TaskStateChangeEvent,
} from '../pools/ecs/spot-interruption';
import { jobWiring } from './aws-job-wiring';

const { config, sessions, logger, metrics } = jobWiring('interruption');

export async function handler(event: TaskStateChangeEvent): Promise<InterruptionOutcome> {
  return handleTaskStateChange({ sessions, metrics, logger, clock: systemClock, config }, event);
}
