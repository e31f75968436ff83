/**
 * The prices the dashboard's cost estimates use: us-east-1 list prices as researched on 2026-11-29
 * (docs/aws-constraints: Fargate, Lambda and API Gateway pricing pages via 2026 summaries; medium
 * confidence). Other Regions differ by up to ~30 %: pass your own to the dashboard.
 */
import type { EcsPoolConfig } from '../functions/core/config';

export interface Prices {
  /** Fargate Linux, per vCPU-hour and per GB-hour. */
  fargateX86: { vcpuHour: number; gbHour: number };
  fargateArm: { vcpuHour: number; gbHour: number };
  /** Fargate Spot as a fraction of the on-demand price ("up to 70 % off"; we assume 70 %). */
  spotFactor: number;
  /** Lambda arm64, per GB-second, and per request. */
  lambdaArmGbSecond: number;
  lambdaRequest: number;
  /** API Gateway REST, per request (first 333 million a month). */
  restApiRequest: number;
}

export const US_EAST_1_PRICES: Prices = {
  fargateX86: { vcpuHour: 0.04048, gbHour: 0.004445 },
  fargateArm: { vcpuHour: 0.03238, gbHour: 0.00356 },
  spotFactor: 0.3,
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  restApiRequest: 3.5 / 1e6,
};

/** What one task of this pool costs per second while it runs (Fargate bills per second, 1 minute minimum). */
export function taskPricePerSecond(pool: EcsPoolConfig, prices: Prices = US_EAST_1_PRICES): number {
  const rates = pool.architecture === 'arm64' ? prices.fargateArm : prices.fargateX86;
  const hourly = (pool.cpu / 1024) * rates.vcpuHour + (pool.memory / 1024) * rates.gbHour;
  return (hourly * (pool.spot ? prices.spotFactor : 1)) / 3600;
}
