/**
 * New-session latency: what a client waits for a ready browser. Through gridgate that is
 * POST /session until the answer; without a grid it is starting `chromedriver --port=0` plus the
 * same POST /session. Rounds alternate which path goes first; deleting the session and stopping
 * the browser happen outside the timed part, and the machine settles before the next one.
 */
import type { PathName } from './command-latency';
import { DirectChromedriver, type LocalPool } from './direct-chromedriver';
import type { BenchOptions } from './options';
import { runRounds } from './rounds';
import type { WebDriverClient } from './webdriver-client';

export type NewSessionPlan = BenchOptions['newSession'];

export interface NewSessionRun {
  samples: Record<PathName, number[]>;
  rounds: { first: PathName; ms: Record<PathName, number> }[];
}

// Chromium's exit and the profile's removal still load the CPU for a moment after "stopped".
const SETTLE_MS = 300;

export async function measureNewSessionLatency(
  client: WebDriverClient,
  gridgateOrigin: string,
  pool: LocalPool,
  plan: NewSessionPlan,
): Promise<NewSessionRun> {
  const measure: Record<PathName, () => Promise<number>> = {
    direct: () => directSession(client, pool),
    gridgate: () => gridgateSession(client, gridgateOrigin),
  };
  for (let i = 0; i < plan.warmup; i++) {
    await measure.direct();
    await measure.gridgate();
  }
  const samples: NewSessionRun['samples'] = { direct: [], gridgate: [] };
  const rounds: NewSessionRun['rounds'] = [];
  await runRounds(plan, async (round) => {
    const order: PathName[] = round % 2 === 0 ? ['direct', 'gridgate'] : ['gridgate', 'direct'];
    const ms = { direct: 0, gridgate: 0 };
    for (const name of order) {
      ms[name] = await measure[name]();
      samples[name].push(ms[name]);
    }
    rounds.push({ first: order[0] as PathName, ms });
  });
  return { samples, rounds };
}

async function gridgateSession(client: WebDriverClient, origin: string): Promise<number> {
  const started = performance.now();
  const sessionId = await client.newSession(origin, { browserName: 'chrome' });
  const ms = performance.now() - started;
  // gridgate answers DELETE only once the browser's process group is gone.
  await client.deleteSession(origin, sessionId);
  await settle();
  return ms;
}

async function directSession(client: WebDriverClient, pool: LocalPool): Promise<number> {
  const started = performance.now();
  const driver = await DirectChromedriver.start(pool);
  try {
    const sessionId = await client.newSession(driver.origin, driver.capabilities);
    const ms = performance.now() - started;
    await client.deleteSession(driver.origin, sessionId);
    return ms;
  } finally {
    await driver.stop();
    await settle();
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
