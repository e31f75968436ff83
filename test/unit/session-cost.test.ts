/** sessionCost: a cloud session's estimated cost, checked against figures worked out by hand. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskBilling } from '../../functions/core/ports';
import { pricesFor, US_EAST_1_PRICES } from '../../functions/core/prices';
import { type RequestPricing, sessionCost } from '../../functions/core/session-cost';

const T0 = Date.UTC(2026, 11, 1, 9, 0, 0);
const REST_LAMBDA: RequestPricing = { frontDoor: 'rest', lambda: true };
const ONE_VCPU_2GB: Omit<TaskBilling, 'billedFrom' | 'capacity'> = {
  vcpu: 1,
  memoryGb: 2,
  architecture: 'x86_64',
};

describe('sessionCost', () => {
  it('prices an on-demand task for its billed seconds plus its requests through REST and Lambda', () => {
    // Pull began at T0, ended 300.2 s later: billed 301 s. 1 vCPU × 0.04048 + 2 GB × 0.004445 = 0.04937 $/h.
    // Task: 301 / 3600 × 0.04937 = 0.004127880…; requests: new session + 40 commands + DELETE = 42 ×
    // (3.5 + 0.2) / 1e6 = 0.0001554. Total 0.004283280…
    const cost = sessionCost(
      {
        billing: { ...ONE_VCPU_2GB, billedFrom: T0, capacity: 'on-demand' },
        endedAt: T0 + 300_200,
        endReason: 'deleted',
        commands: 40,
      },
      US_EAST_1_PRICES,
      REST_LAMBDA,
    );
    expect(cost?.billedSeconds).toBe(301);
    expect(cost?.task).toBeCloseTo(0.00412788056, 10);
    expect(cost?.requests).toBeCloseTo(0.0001554, 10);
    expect(cost?.dollars).toBeCloseTo(0.00428328056, 10);
  });

  it('prices a Spot task at 30 % of on-demand, and a short one for Fargate’s one-minute minimum', () => {
    // 20 s of use is billed as 60 s: 60 / 3600 × 0.04937 × 0.3 = 0.00024685. Idle timeout, no DELETE:
    // new session + 3 commands = 4 requests; a function URL has no per-request fee: 4 × 0.2 / 1e6 = 0.0000008.
    const cost = sessionCost(
      {
        billing: { ...ONE_VCPU_2GB, billedFrom: T0, capacity: 'spot' },
        endedAt: T0 + 20_000,
        endReason: 'idle timeout',
        commands: 3,
      },
      US_EAST_1_PRICES,
      { frontDoor: 'function url', lambda: true },
    );
    expect(cost?.billedSeconds).toBe(60);
    expect(cost?.task).toBeCloseTo(0.00024685, 10);
    expect(cost?.requests).toBeCloseTo(0.0000008, 12);
    expect(cost?.dollars).toBeCloseTo(0.00024765, 10);
  });

  it('bills a warm task from its own pull, before the session claimed it', () => {
    // The warm task pulled at T0 and waited 4 minutes; the session claimed it then and ran 2 minutes: 360 s
    // billed. arm64 on demand (Spot is x86_64 only), 2 vCPU × 0.03238 + 4 GB × 0.00356 = 0.0790 $/h:
    // 360 / 3600 × 0.0790 = 0.0079. Behind a Node head: no front door or Lambda fee.
    const claimedAt = T0 + 240_000;
    const cost = sessionCost(
      {
        billing: { vcpu: 2, memoryGb: 4, architecture: 'arm64', billedFrom: T0, capacity: 'on-demand' },
        endedAt: claimedAt + 120_000,
        endReason: 'deleted',
        commands: 10,
      },
      US_EAST_1_PRICES,
      { frontDoor: 'none', lambda: false },
    );
    expect(cost?.billedSeconds).toBe(360);
    expect(cost?.dollars).toBeCloseTo(0.0079, 10);
    expect(cost?.requests).toBe(0);
  });

  it('has no cost for a session without a task (local, hub) or one still running', () => {
    expect(sessionCost({ endedAt: T0, commands: 3 }, US_EAST_1_PRICES, REST_LAMBDA)).toBeUndefined();
    const billing: TaskBilling = { ...ONE_VCPU_2GB, billedFrom: T0, capacity: 'spot' };
    expect(sessionCost({ billing }, US_EAST_1_PRICES, REST_LAMBDA)).toBeUndefined();
  });

  it('uses the prices a config gives over the listed ones', () => {
    const prices = pricesFor({ region: 'eu-west-1', asOf: '2026-12-01', spotFactor: 0.5 });
    expect(prices).toMatchObject({ region: 'eu-west-1', asOf: '2026-12-01', spotFactor: 0.5 });
    const cost = sessionCost(
      { billing: { ...ONE_VCPU_2GB, billedFrom: T0, capacity: 'spot' }, endedAt: T0 + 3_600_000 },
      prices,
      { frontDoor: 'none', lambda: false },
    );
    expect(cost?.dollars).toBeCloseTo(0.04937 * 0.5, 10);
  });

  it('gives the figure docs/metrics.md states for a 5-minute Spot session with 40 commands behind REST', () => {
    const cost = sessionCost(
      {
        billing: { ...ONE_VCPU_2GB, billedFrom: T0, capacity: 'spot' },
        endedAt: T0 + 300_000,
        endReason: 'deleted',
        commands: 40,
      },
      US_EAST_1_PRICES,
      REST_LAMBDA,
    );
    const page = readFileSync(join(import.meta.dirname, '../../docs/metrics.md'), 'utf8');
    const dollars = (n = 0, digits = 4) => `$${n.toFixed(digits)}`;
    expect(page).toContain(
      `costs\nabout ${dollars(cost?.dollars)} (task ${dollars(cost?.task)}, requests ${dollars(cost?.requests, 5)})`,
    );
  });
});
