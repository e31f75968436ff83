/**
 * The NAT instance's size, from how many browsers may browse through it at once. Every page a browser on
 * Fargate loads passes the NAT instance, and a burstable instance sustains only its baseline bandwidth once
 * its burst credits are gone: a t4g.nano 32 Mbit/s, about eight busy browsers. fck-nat's "Choosing an instance
 * size" page lists each t4g size's baseline; the hourly prices are us-east-1's on-demand Linux ones.
 */
import type { Config } from '../functions/core/config';

export interface NatInstanceSize {
  /** The EC2 instance type, e.g. "t4g.small". */
  type: string;
  /** Sustained bandwidth in Mbit/s (the baseline). */
  baselineMbits: number;
  /** On-demand price per hour, USD (us-east-1). */
  hourly: number;
}

/** t4g sizes, smallest first: each doubles the one before in baseline and price. */
export const NAT_INSTANCE_SIZES: readonly NatInstanceSize[] = [
  { type: 't4g.nano', baselineMbits: 32, hourly: 0.0042 },
  { type: 't4g.micro', baselineMbits: 64, hourly: 0.0084 },
  { type: 't4g.small', baselineMbits: 128, hourly: 0.0168 },
  { type: 't4g.medium', baselineMbits: 256, hourly: 0.0336 },
  { type: 't4g.large', baselineMbits: 512, hourly: 0.0672 },
  { type: 't4g.xlarge', baselineMbits: 1024, hourly: 0.1344 },
  { type: 't4g.2xlarge', baselineMbits: 2048, hourly: 0.2688 },
];

/**
 * What one browser session loads on average: the cost model's 50 MB over a 2-minute test
 * (deployment-costs.ts) is 3.3 Mbit/s; 4 leaves room for heavier pages.
 */
export const SESSION_MBITS = 4;

/** Browsers that may run at once on the grid's own VPC: every ecs pool full (eks pods use the cluster's). */
export function browsingSessions(config: Config): number {
  return Object.values(config.pools)
    .filter((pool) => pool.kind === 'ecs')
    .reduce((sum, pool) => sum + pool.maxSessions, 0);
}

/**
 * The smallest size whose baseline carries `sessions` browsers spread over `natCount` instances (one per AZ,
 * each carrying its AZ's tasks); the largest when none does, with `enough` false.
 */
export function natInstanceSize(sessions: number, natCount = 1): NatInstanceSize & { enough: boolean } {
  const needed = (Math.max(sessions, 0) * SESSION_MBITS) / Math.max(natCount, 1);
  const fits = NAT_INSTANCE_SIZES.find((size) => size.baselineMbits >= needed);
  const largest = NAT_INSTANCE_SIZES[NAT_INSTANCE_SIZES.length - 1] as NatInstanceSize;
  return fits ? { ...fits, enough: true } : { ...largest, enough: false };
}
