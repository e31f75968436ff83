/**
 * The list prices gridgate's cost estimates use (the CloudWatch dashboard's and each session's), per AWS
 * Region and dated: what was researched is listed, nothing is guessed for other Regions. A config's
 * `prices` names its Region and may override any figure (e.g. another Region's, or a negotiated rate).
 */
import type { EcsPoolConfig } from './config';

export interface Prices {
  /** The Region these prices are for, and the day they were read. */
  region: string;
  asOf: string;
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

/**
 * us-east-1 list prices as researched on 2026-11-29 (docs/aws-constraints: Fargate, Lambda and API Gateway
 * pricing pages via 2026 summaries; medium confidence). Other Regions differ by up to ~30 %.
 */
export const US_EAST_1_PRICES: Prices = {
  region: 'us-east-1',
  asOf: '2026-11-29',
  fargateX86: { vcpuHour: 0.04048, gbHour: 0.004445 },
  fargateArm: { vcpuHour: 0.03238, gbHour: 0.00356 },
  spotFactor: 0.3,
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  restApiRequest: 3.5 / 1e6,
};

/** The Regions whose prices are known; a Region not here needs its figures in the config. */
export const REGION_PRICES: Readonly<Record<string, Prices>> = { 'us-east-1': US_EAST_1_PRICES };

/** What a config may say about prices: the Region, and any figure to use instead of the listed one. */
export type PriceSettings = { region: string } & Partial<Omit<Prices, 'region'>>;

/**
 * The prices for the config's settings: the Region's listed ones with the config's figures laid over
 * them. A Region with no listed prices starts from us-east-1's and is dated by the config's `asOf`.
 */
export function pricesFor(settings: PriceSettings | undefined): Prices {
  if (!settings) return US_EAST_1_PRICES;
  const listed = REGION_PRICES[settings.region] ?? US_EAST_1_PRICES;
  return { ...listed, ...settings };
}

/** What one task of this pool costs per second while it runs (Fargate bills per second, 1 minute minimum). */
export function taskPricePerSecond(pool: EcsPoolConfig, prices: Prices = US_EAST_1_PRICES): number {
  const rates = pool.architecture === 'arm64' ? prices.fargateArm : prices.fargateX86;
  const hourly = (pool.cpu / 1024) * rates.vcpuHour + (pool.memory / 1024) * rates.gbHour;
  return (hourly * (pool.spot ? prices.spotFactor : 1)) / 3600;
}
