import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  costTable,
  fixedMonthly,
  networkMonthly,
  sessionCost,
  TYPICAL_POOL,
} from '../../infra/deployment-costs';
import { type DeploymentPrices, US_EAST_1_DEPLOYMENT_PRICES } from '../../infra/prices';
import { ROOT } from './grid-stack-fixture';

describe('what a deployment costs, from infra/prices.ts', () => {
  it('prices each network layout idle: hours of NAT, public IPv4 and endpoints over a 730-hour month', () => {
    // t4g.nano $0.0042/h + public IPv4 $0.005/h, 8 GB gp3 at $0.08.
    expect(networkMonthly({ layout: 'nat-instance' })).toBeCloseTo((0.0042 + 0.005) * 730 + 8 * 0.08, 6);
    expect(networkMonthly({ layout: 'nat-gateway', natCount: 2 })).toBeCloseTo(2 * (0.045 + 0.005) * 730, 6);
    expect(networkMonthly({ layout: 'endpoints' })).toBeCloseTo(5 * 2 * 0.01 * 730, 6);
    expect(networkMonthly({ layout: 'endpoints', endpointAzs: 1 })).toBeCloseTo(5 * 0.01 * 730, 6);
    expect(networkMonthly({ layout: 'existing' })).toBe(0);
    expect(fixedMonthly()).toBeCloseTo(0.4 + 3 + 5 * 0.1, 6);
  });

  it('prices a session: the task, the router, REST requests, and NAT gateway processing only where there is one', () => {
    const spotTask = ((0.04048 + 2 * 0.004445) * 0.3 * 170) / 3600;
    const router = 500 * 0.2e-6 + 65 * 0.5 * 0.0000133334;
    expect(sessionCost(TYPICAL_POOL, 'function-url', 'nat-instance')).toBeCloseTo(spotTask + router, 9);
    expect(sessionCost(TYPICAL_POOL, 'rest-api', 'nat-instance')).toBeCloseTo(
      spotTask + router + 500 * 3.5e-6,
      9,
    );
    expect(sessionCost(TYPICAL_POOL, 'rest-api', 'nat-gateway')).toBeCloseTo(
      spotTask + router + 500 * 3.5e-6 + 0.05 * 0.045,
      9,
    );
  });

  it('follows the prices it is given', () => {
    const dearer: DeploymentPrices = { ...US_EAST_1_DEPLOYMENT_PRICES, natInstanceHour: 1 };
    expect(costTable(dearer)).not.toEqual(costTable());
  });

  it('is what docs/aws.md says, figure for figure', () => {
    const page = readFileSync(join(ROOT, 'docs/aws.md'), 'utf8');
    expect(page).toContain(costTable());
  });
});
