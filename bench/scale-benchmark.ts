/**
 * Scale: a thousand sessions open at once on a fake launcher (a hub pool in front of the fake nginx
 * upstream, so no browser is involved), and what that costs gridgate's Node server: its memory, and
 * the latency of commands. Commands are timed with one session open, with all of them open (each
 * command to a session picked at random), and again after all are closed, so drift from other load on
 * the machine shows as a difference between the two one-session phases. With all open, it also times
 * commands with and without a Prometheus-style scrape of /metrics every second (scrape-load.ts).
 *
 * Two builds of the same server are measured: under tsx (whose loader thread alone holds ~35 MiB), and
 * bundled with the production build's options and run by plain node, as `npm start` runs it.
 */
import { fileURLToPath } from 'node:url';
import { buildServer } from '../scripts/server-build.mjs';
import { resetPeakRss, rssOf, startProxyGridgate } from './proxy-gridgate';
import { startFakeUpstream } from './proxy-nginx';
import { measureScrapeLoad, type ScrapeLoadRun } from './scrape-load';
import type { WebDriverClient } from './webdriver-client';

export interface ScalePlan {
  sessions: number;
  /** Sessions opened at once while filling up. */
  concurrency: number;
  /** Commands timed in each phase, one after another, after as many unrecorded ones. */
  commands: number;
}

export const SCALE_PLANS: Record<'default' | 'long', ScalePlan> = {
  default: { sessions: 1000, concurrency: 16, commands: 2000 },
  long: { sessions: 1000, concurrency: 16, commands: 6000 },
};

export const SCALE_BUILDS = ['tsx', 'bundled'] as const;
export type ScaleBuild = (typeof SCALE_BUILDS)[number];

export interface ScaleRun {
  build: ScaleBuild;
  plan: ScalePlan;
  /** Resident memory of the gridgate process, bytes: before any session, with all open, and after. */
  rss: { idle: number; open: number; peakWhileOpen: number; closed: number };
  /**
   * V8 heap in use after a full collection, bytes, with all sessions open and once all but one are
   * closed: their difference is what the sessions themselves hold. Read after the RSS figures above,
   * since a forced collection would lower them.
   */
  liveHeap: { open: number; one: number };
  /** Milliseconds it took to open them all. */
  openMs: number;
  /** Per command, ms. */
  latency: { oneBefore: number[]; all: number[]; oneAfter: number[] };
  /** With all open: commands in windows without and with a scrape of /metrics every second. */
  scrape: ScrapeLoadRun;
}

// Commands before the first timed phase: the server's JIT needs thousands to settle.
const WARMUP_COMMANDS = 5000;

/** Both builds, one after the other, against one fake upstream. */
export async function measureScale(
  client: WebDriverClient,
  plan: ScalePlan,
  log: (line: string) => void,
): Promise<ScaleRun[]> {
  const upstream = await startFakeUpstream();
  try {
    const bundle = await bundleServer();
    const runs: ScaleRun[] = [];
    for (const build of SCALE_BUILDS) {
      log(`scale (${build}): opening ${plan.sessions} sessions…`);
      runs.push(
        await measureBuild(client, plan, build, upstream.origin, build === 'bundled' ? bundle : undefined),
      );
    }
    return runs;
  } finally {
    await upstream.process.stop();
  }
}

async function measureBuild(
  client: WebDriverClient,
  plan: ScalePlan,
  build: ScaleBuild,
  upstream: string,
  bundle: string | undefined,
): Promise<ScaleRun> {
  // Room for every session (a hub pool holds 4 by default).
  const grid = await startProxyGridgate(upstream, { maxSessions: plan.sessions, bundle });
  try {
    const idle = (await rssOf(grid.pid)).rss;
    const first = await client.newSession(grid.origin, { browserName: 'chrome' });
    // Sessions opened and closed before the warm-up, as the fill will: the first new sessions after a
    // run of commands deoptimize the HTTP code both share (V8 sees other shapes), and commands take
    // thousands more to be fast again; after that, more sessions cost nothing (bench/README).
    await inBatches(
      await openSessions(client, grid.origin, plan.concurrency, plan.concurrency),
      plan.concurrency,
      (id) => client.deleteSession(grid.origin, id),
    );
    await timeCommands(client, grid.origin, [first], WARMUP_COMMANDS);
    const oneBefore = await timeCommands(client, grid.origin, [first], plan.commands);

    await resetPeakRss(grid.pid);
    const started = performance.now();
    const sessions = [
      first,
      ...(await openSessions(client, grid.origin, plan.sessions - 1, plan.concurrency)),
    ];
    const openMs = performance.now() - started;
    const all = await timeCommands(client, grid.origin, sessions, plan.commands);
    const { rss: open, peak: peakWhileOpen } = await rssOf(grid.pid);
    const liveHeapOpen = await grid.liveHeap();
    const scrape = await measureScrapeLoad(client, grid.origin, sessions);

    await inBatches(sessions.slice(1), plan.concurrency, (id) => client.deleteSession(grid.origin, id));
    // Timed before the forced collection: a full GC deoptimizes the command path's optimized code (objects
    // it embeds die), and commands take thousands more to be fast again (bench/README).
    const oneAfter = await timeCommands(client, grid.origin, [first], plan.commands);
    const liveHeapOne = await grid.liveHeap();
    await client.deleteSession(grid.origin, first);
    const closed = (await rssOf(grid.pid)).rss;
    return {
      build,
      plan,
      rss: { idle, open, peakWhileOpen, closed },
      liveHeap: { open: liveHeapOpen, one: liveHeapOne },
      openMs,
      latency: { oneBefore, all, oneAfter },
      scrape,
    };
  } finally {
    await grid.stop();
  }
}

/**
 * proxy-gridgate-child.ts bundled under .tmp/ (git-ignored) with the production build's options
 * (scripts/server-build.mjs), so that it loads what `npm start`'s server loads.
 */
async function bundleServer(): Promise<string> {
  const entry = fileURLToPath(new URL('../.tmp/scale-bench/gridgate-server.mjs', import.meta.url));
  await buildServer(
    { 'gridgate-server': fileURLToPath(new URL('./proxy-gridgate-child.ts', import.meta.url)) },
    entry,
  );
  return entry;
}

async function openSessions(client: WebDriverClient, origin: string, count: number, concurrency: number) {
  const ids: string[] = [];
  await inBatches(Array.from({ length: count }), concurrency, async () => {
    ids.push(await client.newSession(origin, { browserName: 'chrome' }));
  });
  return ids;
}

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(work));
}

/** `count` commands one after another, each to a session picked at random; their times in ms. */
async function timeCommands(
  client: WebDriverClient,
  origin: string,
  sessions: readonly string[],
  count: number,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const session = sessions[Math.floor(Math.random() * sessions.length)] as string;
    const answer = await client.send(origin, 'GET', `/session/${session}/title`);
    if (answer.value !== 'x') throw new Error(`scale: a command answered ${JSON.stringify(answer.value)}`);
    times.push(answer.ms);
  }
  return times;
}
