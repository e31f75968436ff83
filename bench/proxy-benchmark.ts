/**
 * The proxy benchmark: one fake W3C upstream that answers at once (nginx), reached six ways — direct,
 * through nginx as a reverse proxy, through Selenium Grid 4 (relay node), through ggr (the router gridgate
 * replaces; when ../shared/peers/ggr is there), through gridgate (hub pool) in one process, through gridgate
 * as users run it (npm start, its default worker processes) and through the plain Node
 * proxy (plain-node-proxy.ts, the floor for any Node proxy) — measured with wrk in interleaved rounds;
 * then a 20 MB response streamed through gridgate while its memory is watched. Everything started here
 * is stopped by the caller's teardown.
 */
import { request } from 'undici';
import { withTreeCpu } from './process-cpu';
import { GGR_AUTHORIZATION, ggrAvailable, startGgr } from './proxy-ggr';
import { type ProxyGridgate, resetPeakRss, rssOf, startProxyGridgate } from './proxy-gridgate';
import { startGridgateServer } from './proxy-gridgate-server';
import {
  COMMAND_ANSWER,
  FAKE_SESSION_ID,
  LARGE_RESPONSE_BYTES,
  startFakeUpstream,
  startNginxProxy,
} from './proxy-nginx';
import { startSeleniumGrid } from './proxy-selenium-grid';
import { runWrk, type WrkRun } from './proxy-wrk';
import { startPlainNodeProxy } from './reference-proxies';

export const PROXY_PATHS = [
  'direct',
  'nginx',
  'grid4',
  'ggr',
  'gridgate',
  'gridgateServer',
  'plainNode',
] as const;
export type ProxyPathName = (typeof PROXY_PATHS)[number];
/** Measured only where its program is present. */
export type OptionalProxyPath = 'ggr';

export interface ProxyPlan {
  /** Rounds; the paths' order rotates each round. */
  rounds: number;
  /** wrk duration of each throughput run (with `connections` connections). */
  throughputSeconds: number;
  connections: number;
  /** wrk duration of each latency run (one connection: requests one after another, as a test sends them). */
  latencySeconds: number;
  /** One unrecorded throughput run per path first (JIT for Node and the JVM, connection pools). */
  warmupSeconds: number;
  /** Downloads of the large response through gridgate: fast readers, then one slow reader. */
  largeDownloads: number;
}

export const PROXY_PLANS: Record<'default' | 'long', ProxyPlan> = {
  default: {
    rounds: 4,
    throughputSeconds: 5,
    connections: 16,
    latencySeconds: 3,
    warmupSeconds: 3,
    largeDownloads: 3,
  },
  long: {
    rounds: 4,
    throughputSeconds: 10,
    connections: 16,
    latencySeconds: 5,
    warmupSeconds: 5,
    largeDownloads: 5,
  },
};

/** One figure per measured path: every path but the optional ones is always measured. */
export type PerPath<T> = Record<Exclude<ProxyPathName, OptionalProxyPath>, T> &
  Partial<Record<OptionalProxyPath, T>>;

/** A wrk run and the CPU seconds the path's own processes spent during it (the upstream's not included). */
export type MeteredRun = WrkRun & { cpuSeconds: number };

export interface ProxyRound {
  order: ProxyPathName[];
  throughput: PerPath<MeteredRun>;
  latency: PerPath<MeteredRun>;
}

export interface LargeResponsePhase {
  /** gridgate's RSS before the phase, and the most it reached during it (VmHWM, or sampled every 5 ms). */
  rssBeforeBytes: number;
  peakRssBytes: number;
  peakFrom: 'VmHWM' | 'sampled';
  /** Seconds per download. */
  seconds: number[];
}

export interface LargeResponseRun {
  bytes: number;
  /** Readers that take the body as fast as it comes. */
  fast: LargeResponsePhase;
  /** One reader at SLOW_READER_BYTES_PER_S: gridgate must hold the upstream back (backpressure), not buffer. */
  slow: LargeResponsePhase;
}

export interface ProxyRun {
  plan: ProxyPlan;
  seleniumGridVersion: string;
  /** Worker processes of gridgate as users run it (gridgateServer). */
  gridgateWorkers: number;
  /** The paths measured, in PROXY_PATHS order; and why an optional one is missing. */
  paths: ProxyPathName[];
  skipped: Partial<Record<OptionalProxyPath, string>>;
  urls: PerPath<string>;
  rounds: ProxyRound[];
  largeResponse: LargeResponseRun;
}

const W3C_CHROME = { capabilities: { alwaysMatch: { browserName: 'chrome' } } };

async function newSession(origin: string, authorization?: string): Promise<string> {
  const response = await request(`${origin}/session`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify(W3C_CHROME),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200)
    throw new Error(`new session at ${origin}: ${response.statusCode} ${text}`);
  return (JSON.parse(text) as { value: { sessionId: string } }).value.sessionId;
}

/** Every path must answer the command exactly as the upstream does, or the run fails (wrk reads no bodies). */
async function checkAnswers(urls: PerPath<string>): Promise<void> {
  for (const [path, url] of Object.entries(urls)) {
    const response = await request(url);
    const text = await response.body.text();
    if (response.statusCode !== 200 || text !== COMMAND_ANSWER) {
      throw new Error(
        `${path} answered ${response.statusCode} ${text.slice(0, 200)} instead of ${COMMAND_ANSWER}`,
      );
    }
  }
}

export async function measureProxy(plan: ProxyPlan, log: (line: string) => void): Promise<ProxyRun> {
  const upstream = await startFakeUpstream();
  const skipped: ProxyRun['skipped'] = {};
  if (!ggrAvailable()) skipped.ggr = 'no ggr binary at ../shared/peers/ggr/ggr';
  const [nginx, grid4, ggr, gridgate, gridgateServer, plainNode] = await Promise.all([
    startNginxProxy(upstream.origin),
    startSeleniumGrid(upstream.origin, plan.connections),
    skipped.ggr ? undefined : startGgr(upstream.origin),
    startProxyGridgate(upstream.origin),
    startGridgateServer(upstream.origin),
    startPlainNodeProxy(upstream.origin),
  ]);
  if (skipped.ggr) log(`  ggr: skipped (${skipped.ggr})`);
  const ggrHub = ggr && `${ggr.origin}/wd/hub`;
  const sessions = {
    direct: FAKE_SESSION_ID,
    nginx: FAKE_SESSION_ID,
    grid4: await newSession(grid4.origin),
    gridgate: await newSession(gridgate.origin),
    gridgateServer: await newSession(gridgateServer.origin),
    plainNode: FAKE_SESSION_ID,
    ...(ggrHub ? { ggr: await newSession(ggrHub, GGR_AUTHORIZATION) } : {}),
  };
  const origins: PerPath<string> = {
    direct: upstream.origin,
    nginx: nginx.origin,
    grid4: grid4.origin,
    gridgate: gridgate.origin,
    gridgateServer: gridgateServer.origin,
    plainNode: plainNode.origin,
    ...(ggrHub ? { ggr: ggrHub } : {}),
  };
  // The processes whose CPU time each path costs: the proxy's process tree (for direct, the upstream's own).
  const pids: PerPath<number> = {
    direct: upstream.process.pid,
    nginx: nginx.process.pid,
    grid4: grid4.process.pid,
    gridgate: gridgate.pid,
    gridgateServer: gridgateServer.process.pid,
    plainNode: plainNode.process.pid,
    ...(ggr ? { ggr: ggr.process.pid } : {}),
  };
  const paths = PROXY_PATHS.filter((path) => origins[path] !== undefined);
  const urls = Object.fromEntries(
    paths.map((path) => [path, `${origins[path]}/session/${sessions[path]}/title`]),
  ) as PerPath<string>;
  await checkAnswers(urls);

  const url = (path: ProxyPathName) => urls[path] as string;
  const metered = async (path: ProxyPathName, connections: number, seconds: number): Promise<MeteredRun> => {
    const { result, cpuSeconds } = await withTreeCpu([pids[path] as number], () =>
      runWrk(url(path), connections, seconds),
    );
    return { ...result, cpuSeconds };
  };
  for (const path of paths) await runWrk(url(path), plan.connections, plan.warmupSeconds);
  const rounds: ProxyRound[] = [];
  for (let index = 0; index < plan.rounds; index++) {
    // The order rotates every round, so load from other work is spread over all paths.
    const order = paths.map((_, i) => paths[(i + index) % paths.length] as ProxyPathName);
    const throughput = {} as ProxyRound['throughput'];
    const latency = {} as ProxyRound['latency'];
    for (const path of order)
      throughput[path] = await metered(path, plan.connections, plan.throughputSeconds);
    for (const path of order) latency[path] = await metered(path, 1, plan.latencySeconds);
    rounds.push({ order, throughput, latency });
    log(
      `  round ${index + 1}/${plan.rounds}: ${order.map((path) => `${path} ${throughput[path]?.requestsPerSecond.toFixed(0)}/s`).join(', ')}`,
    );
  }
  await checkAnswers(urls);

  const largeResponse = await measureLargeResponse(gridgate, sessions.gridgate, plan.largeDownloads);
  // Ended as a client would end them, so that neither server has to clean up after the benchmark.
  for (const path of [
    'grid4',
    'gridgate',
    'gridgateServer',
    ...(ggrHub ? (['ggr'] as const) : []),
  ] as const) {
    await (await request(`${origins[path]}/session/${sessions[path]}`, { method: 'DELETE' })).body.dump();
  }
  return {
    plan,
    seleniumGridVersion: grid4.version,
    gridgateWorkers: gridgateServer.workers,
    paths,
    skipped,
    urls,
    rounds,
    largeResponse,
  };
}

/** The slow reader's pace: 20 MiB take about 2.5 s, several times longer than gridgate needs to relay them. */
export const SLOW_READER_BYTES_PER_S = 8 * 1024 * 1024;

/** Reads the whole body; with `bytesPerSecond`, no faster than that, so gridgate must hold back. */
async function download(url: string, bytesPerSecond?: number): Promise<number> {
  const started = performance.now();
  const response = await request(url, { bodyTimeout: 120_000 });
  if (response.statusCode !== 200) throw new Error(`large response: ${response.statusCode}`);
  let bytes = 0;
  for await (const chunk of response.body) {
    bytes += (chunk as Buffer).length;
    if (bytesPerSecond) {
      const due = started + (bytes / bytesPerSecond) * 1000;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    }
  }
  if (bytes !== LARGE_RESPONSE_BYTES) {
    throw new Error(`large response: ${bytes} bytes, not ${LARGE_RESPONSE_BYTES}`);
  }
  return (performance.now() - started) / 1000;
}

/** Runs `downloads` and watches gridgate's RSS meanwhile: the kernel's peak (reset first) and samples. */
async function watchRss(pid: number, downloads: () => Promise<number[]>): Promise<LargeResponsePhase> {
  const before = await rssOf(pid);
  const reset = await resetPeakRss(pid);
  let sampledPeak = before.rss;
  const sampler = setInterval(() => {
    rssOf(pid).then(
      ({ rss }) => {
        sampledPeak = Math.max(sampledPeak, rss);
      },
      () => {},
    );
  }, 5);
  try {
    const seconds = await downloads();
    const after = await rssOf(pid);
    return {
      rssBeforeBytes: before.rss,
      peakRssBytes: reset ? Math.max(after.peak, sampledPeak) : sampledPeak,
      peakFrom: reset ? 'VmHWM' : 'sampled',
      seconds,
    };
  } finally {
    clearInterval(sampler);
  }
}

async function measureLargeResponse(
  gridgate: ProxyGridgate,
  session: string,
  downloads: number,
): Promise<LargeResponseRun> {
  const url = `${gridgate.origin}/session/${session}/screenshot`;
  // One unrecorded download first: the first large answer also grows the heap and JIT-compiles the
  // streaming path, once per process. Then the slow reader, whose peak is then not inflated by what
  // the fast readers left for the GC.
  await download(url);
  const slow = await watchRss(gridgate.pid, async () => [await download(url, SLOW_READER_BYTES_PER_S)]);
  const fast = await watchRss(gridgate.pid, async () => {
    const seconds: number[] = [];
    for (let i = 0; i < downloads; i++) seconds.push(await download(url));
    return seconds;
  });
  return { bytes: LARGE_RESPONSE_BYTES, fast, slow };
}
