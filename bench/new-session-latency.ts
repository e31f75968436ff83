/**
 * New-session latency: what a client waits for a ready browser. Through gridgate that is
 * POST /session until the answer; without a grid it is the same POST /session to a chromedriver
 * already running (`chromedriver --port=0`, started and settled outside the timed part): the baseline
 * is what the browser's own start costs, so the ratio is what the grid adds. Rounds alternate which
 * path goes first; deleting the session and stopping the browser happen outside the timed part, and
 * the machine settles before the next one. With warm browsers (`--warm N`), each session of either
 * path first waits until /status shows N ready again, then settles: every gridgate session measures
 * the warm path, and no replacement browser's start loads the machine under either path.
 *
 * Where its binary is there, ggr is a third path: POST /session through ggr to the chromedriver of its own it
 * has in front of it all along (ggr-browser.ts), as ggr is deployed; DELETE through it afterwards, outside the
 * timed part as for the others. The rounds rotate which path goes first.
 *
 * Each session's CPU time is read too (process-cpu.ts), for gridgate's process and everything below it
 * (chromedriver, Chromium, pasta, helpers), for the direct chromedriver's tree and for ggr's process with its
 * chromedriver's tree: up to the answer, and up to AFTERMATH_MS after it, which also holds what follows a
 * session's start (a replacement chromedriver, Chromium's first idle work) on every path alike.
 */
import type { Capabilities } from '../functions/core/capabilities';
import type { PathName } from './command-latency';
import { DirectChromedriver, type LocalPool } from './direct-chromedriver';
import type { GgrBrowser } from './ggr-browser';
import type { BenchOptions } from './options';
import { cpuBetween, cpuByProgram, readTreeCpu } from './process-cpu';
import { runRounds } from './rounds';
import type { WebDriverClient } from './webdriver-client';

export type NewSessionPlan = BenchOptions['newSession'];

/** CPU seconds one new session cost its path's processes. */
export interface SessionCpu {
  /** From just before the request until its answer was read. */
  toAnswer: number;
  /** The same, until AFTERMATH_MS after the answer. */
  withAftermath: number;
  /** toAnswer and withAftermath by program (process-cpu.ts cpuByProgram). */
  byProgram: { toAnswer: Record<string, number>; withAftermath: Record<string, number> };
}

/** The new-session part's paths: the two, and ggr where it was started. */
export type SessionPathName = PathName | 'ggr';
/** Something per path; ggr's only when it was measured. */
export type PerSessionPath<T> = Record<PathName, T> & Partial<Record<'ggr', T>>;

export interface NewSessionRun {
  samples: PerSessionPath<number[]>;
  /** Per recorded session, in the order of `samples`. */
  cpu: PerSessionPath<SessionCpu[]>;
  rounds: { first: SessionPathName; ms: PerSessionPath<number> }[];
  /** Recorded gridgate sessions that took a warm browser (the warm count in /status dropped). */
  warmTaken: number;
}

// Chromium's exit and the profile's removal still load the CPU for a moment after "stopped"; a
// replacement warm browser still finishes its start (first tab, caches) after it answers.
const SETTLE_MS = 300;
// A replacement browser is ready in about a second; on a loaded machine it may take much longer.
const WARM_READY_TIMEOUT_MS = 60_000;
// Long enough for what a session's start sets off after the answer: the launcher's once-a-second refill.
export const AFTERMATH_MS = 1500;

interface Measured {
  ms: number;
  cpu: SessionCpu;
}

/**
 * Times one new session at `origin` and reads the CPU of `roots`' trees around it; `atAnswer` runs right
 * after the answer, before the aftermath. Returns the session's ID and what `atAnswer` returned too.
 */
async function timedSession<T>(
  client: WebDriverClient,
  origin: string,
  capabilities: Capabilities,
  roots: number[],
  atAnswer: () => Promise<T>,
  headers: Record<string, string> = {},
): Promise<Measured & { sessionId: string; atAnswer: T }> {
  const before = readTreeCpu(...roots);
  const started = performance.now();
  const sessionId = await client.newSession(origin, capabilities, headers);
  const ms = performance.now() - started;
  const atTheAnswer = readTreeCpu(...roots);
  const answered = await atAnswer();
  await new Promise((resolve) => setTimeout(resolve, AFTERMATH_MS));
  const afterwards = readTreeCpu(...roots);
  const cpu: SessionCpu = {
    toAnswer: cpuBetween(before, atTheAnswer),
    withAftermath: cpuBetween(before, afterwards),
    byProgram: {
      toAnswer: cpuByProgram(before, atTheAnswer),
      withAftermath: cpuByProgram(before, afterwards),
    },
  };
  return { ms, sessionId, cpu, atAnswer: answered };
}

export async function measureNewSessionLatency(
  client: WebDriverClient,
  gridgateOrigin: string,
  /** gridgate's process: its tree's CPU is what a session costs through the grid. */
  gridgatePid: number,
  pool: LocalPool,
  plan: NewSessionPlan,
  /** ggr in front of its own chromedriver, running for the whole part; undefined: ggr is not measured. */
  ggr?: GgrBrowser,
): Promise<NewSessionRun> {
  let warmTaken = 0;
  let recording = false;
  const measure: PerSessionPath<() => Promise<Measured>> = {
    // The direct path waits too: a replacement browser still starting would load the CPU under it.
    direct: async () => {
      await untilWarm(gridgateOrigin, plan.warm);
      return directSession(client, pool);
    },
    gridgate: async () => {
      const warmBefore = await untilWarm(gridgateOrigin, plan.warm);
      const { warmAfter, ...measured } = await gridgateSession(client, gridgateOrigin, gridgatePid);
      if (recording && warmAfter < warmBefore) warmTaken++;
      return measured;
    },
    // Waits as direct does: ggr's sessions must not run beside gridgate's replacement browser either.
    ...(ggr && {
      ggr: async () => {
        await untilWarm(gridgateOrigin, plan.warm);
        return ggrSession(client, ggr);
      },
    }),
  };
  const paths: SessionPathName[] = ['direct', 'gridgate', ...(ggr ? (['ggr'] as const) : [])];
  const run = (name: SessionPathName) => (measure[name] as () => Promise<Measured>)();
  for (let i = 0; i < plan.warmup; i++) {
    for (const name of paths) await run(name);
  }
  const samples: NewSessionRun['samples'] = { direct: [], gridgate: [], ...(ggr && { ggr: [] }) };
  const cpu: NewSessionRun['cpu'] = { direct: [], gridgate: [], ...(ggr && { ggr: [] }) };
  const rounds: NewSessionRun['rounds'] = [];
  recording = true;
  await runRounds(plan, async (round) => {
    // Each path goes first in turn: direct, gridgate (, ggr); then gridgate, (ggr,) direct; …
    const order = paths.map((_, i) => paths[(i + round) % paths.length] as SessionPathName);
    const ms: PerSessionPath<number> = { direct: 0, gridgate: 0 };
    for (const name of order) {
      const measured = await run(name);
      ms[name] = measured.ms;
      samples[name]?.push(measured.ms);
      cpu[name]?.push(measured.cpu);
    }
    rounds.push({ first: order[0] as SessionPathName, ms });
  });
  if (plan.warm > 0)
    console.log(`gridgate sessions that took a warm browser: ${warmTaken} of ${rounds.length}`);
  return { samples, cpu, rounds, warmTaken };
}

async function gridgateSession(
  client: WebDriverClient,
  origin: string,
  pid: number,
): Promise<Measured & { warmAfter: number }> {
  // The warm count is read before the replacement can be ready (it starts once this one was handed over).
  const {
    ms,
    cpu,
    sessionId,
    atAnswer: warmAfter,
  } = await timedSession(client, origin, { browserName: 'chrome' }, [pid], () => warmCount(origin));
  // gridgate answers DELETE only once the browser's process groups are gone.
  await client.deleteSession(origin, sessionId);
  await settle();
  return { ms, cpu, warmAfter };
}

/** The local pool's warm count in gridgate's /status. */
async function warmCount(origin: string): Promise<number> {
  const response = await fetch(`${origin}/status`);
  const body = (await response.json()) as { value: { pools?: { name: string; warm?: number }[] } };
  return body.value.pools?.find((pool) => pool.name === 'local')?.warm ?? 0;
}

/** Waits until `count` warm browsers are ready (none with `warm` 0), then lets the machine settle. */
async function untilWarm(origin: string, count: number): Promise<number> {
  if (count === 0) return 0;
  const deadline = performance.now() + WARM_READY_TIMEOUT_MS;
  let ready = await warmCount(origin);
  while (ready < count) {
    if (performance.now() > deadline) throw new Error(`gridgate never had ${count} warm browsers ready`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    ready = await warmCount(origin);
  }
  await settle();
  return ready;
}

/** A session through ggr to its running chromedriver, then DELETE through ggr (chromedriver quits the browser). */
async function ggrSession(client: WebDriverClient, ggr: GgrBrowser): Promise<Measured> {
  const { ms, cpu, sessionId } = await timedSession(
    client,
    ggr.hub,
    ggr.capabilities,
    [ggr.pids.ggr, ggr.pids.chromedriver],
    async () => undefined,
    ggr.newSessionHeaders,
  );
  await client.deleteSession(ggr.hub, sessionId);
  await settle();
  return { ms, cpu };
}

async function directSession(client: WebDriverClient, pool: LocalPool): Promise<Measured> {
  const driver = await DirectChromedriver.start(pool);
  try {
    // Running before the clock starts, and the machine settled after its start.
    await settle();
    const { ms, cpu, sessionId } = await timedSession(
      client,
      driver.origin,
      driver.capabilities,
      [driver.pid],
      async () => undefined,
    );
    await client.deleteSession(driver.origin, sessionId);
    return { ms, cpu };
  } finally {
    await driver.stop();
    await settle();
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
