/**
 * What a session cost, estimated from list prices: its task's vCPU and memory for the seconds Fargate
 * billed (from the image pull's start to the stop, rounded up to the second, one minute at least, at the
 * Spot or on-demand rate it was placed at), plus the front door's per-request and Lambda's per-invocation
 * price of every request the session made. Pure: the facts come from the record, the prices from the config.
 */

import type { SessionRecord, TaskBilling } from './ports';
import type { Prices } from './prices';

// Fargate bills per second with a one-minute minimum (aws-constraints 5.5; AWS Fargate pricing).
const MINIMUM_BILLED_SECONDS = 60;

/** What each request of a session costs where it is served: API Gateway and Lambda, or nothing (a Node head). */
export interface RequestPricing {
  frontDoor: 'rest' | 'function url' | 'none';
  lambda: boolean;
}

/** A Node server answering directly: no front door and no Lambda between client and grid. */
export const NO_REQUEST_FEES: RequestPricing = { frontDoor: 'none', lambda: false };

export interface SessionCost {
  /** US dollars, everything. */
  dollars: number;
  task: number;
  requests: number;
  billedSeconds: number;
  capacity: TaskBilling['capacity'];
}

/** Per request, in dollars, for the given serving path. */
export function requestPrice(pricing: RequestPricing, prices: Prices): number {
  return (
    (pricing.frontDoor === 'rest' ? prices.restApiRequest : 0) + (pricing.lambda ? prices.lambdaRequest : 0)
  );
}

/**
 * The estimated cost of an ended session whose browser was a cloud task; undefined for one still running
 * or without a task's billing (local and hub sessions). Its requests: the new-session one, every command,
 * and the DELETE when the client ended it.
 */
export function sessionCost(
  record: Pick<SessionRecord, 'billing' | 'endedAt' | 'endReason' | 'commands'>,
  prices: Prices,
  pricing: RequestPricing,
): SessionCost | undefined {
  const { billing, endedAt } = record;
  if (!billing || endedAt === undefined) return undefined;
  const billedSeconds = Math.max(MINIMUM_BILLED_SECONDS, Math.ceil((endedAt - billing.billedFrom) / 1000));
  const rates = billing.architecture === 'arm64' ? prices.fargateArm : prices.fargateX86;
  const hourly = billing.vcpu * rates.vcpuHour + billing.memoryGb * rates.gbHour;
  const task = (billedSeconds / 3600) * hourly * (billing.capacity === 'spot' ? prices.spotFactor : 1);
  const requestCount = 1 + (record.commands ?? 0) + (record.endReason === 'deleted' ? 1 : 0);
  const requests = requestCount * requestPrice(pricing, prices);
  return { dollars: task + requests, task, requests, billedSeconds, capacity: billing.capacity };
}
