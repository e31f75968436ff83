/** The proxy benchmark's results: medians over rounds per path, ratios, the issue's goals met or not. */
import {
  type LargeResponsePhase,
  type MeteredRun,
  type PerPath,
  type ProxyPathName,
  type ProxyRun,
  SLOW_READER_BYTES_PER_S,
} from './proxy-benchmark';
import { type MedianInterval, median, medianInterval } from './stats';

/** The issue's goals; reported as met or not met, never asserted. */
export const PROXY_TARGETS = {
  /** gridgate's requests/s as users run it (npm start, default workers) at least this share of nginx's (one worker). */
  vsNginx: 0.4,
  /** gridgate's requests/s at least this many times Grid 4's. */
  vsGrid4: 8,
  /** gridgate's requests/s as users run it at least this many times ggr's, the router it replaces. */
  vsGgr: 1.3,
  /** One gridgate process at least this share of the plain Node proxy's requests/s. */
  vsPlainNode: 0.9,
  /** gridgate's p50 (one connection) at most this much above direct, ms. */
  addedP50Ms: 0.5,
  /** "Flat memory" for the 20 MB response: gridgate's peak RSS grows by less than a quarter of it. */
  largeResponseGrowthBytes: 5 * 1024 * 1024,
} as const;

export interface PathSummary {
  /** Median over rounds of each run's figure. */
  requestsPerSecond: number;
  requestsPerSecondRange: [number, number];
  /** Latency under `connections` connections (queueing included). */
  loadedP50Ms: number;
  loadedP99Ms: number;
  /** Latency with one connection: what one request costs. */
  p50Ms: number;
  p99Ms: number;
  socketErrors: number;
  /** CPU seconds the path's own processes spent per 10,000 requests: with c16 runs and with c1 runs. */
  cpuPer10k: { loaded: MedianInterval; oneByOne: MedianInterval };
}

const cpuPer10k = (runs: MeteredRun[]): MedianInterval =>
  medianInterval(runs.map((run) => (run.cpuSeconds / run.requests) * 10_000));

export type Met = 'met' | 'not met';
const met = (ok: boolean): Met => (ok ? 'met' : 'not met');

export interface ProxyReport {
  plan: ProxyRun['plan'];
  seleniumGridVersion: string;
  /** Worker processes of gridgate as users run it. */
  gridgateWorkers: number;
  paths: PerPath<PathSummary>;
  /** Optional paths not measured, and why. */
  skipped: ProxyRun['skipped'];
  /**
   * gridgate's requests/s as users run it (gridgateServer) over nginx's, Grid 4's and ggr's (ratio of the
   * medians), and per round; and over one gridgate process's (what the worker processes bring).
   */
  vsNginx: Ratio;
  vsOneProcess: number;
  vsGrid4: Ratio;
  vsGgr?: Ratio;
  /**
   * The plain Node proxy's requests/s over nginx's and Grid 4's (the most any Node proxy reaches here),
   * and gridgate's over the plain Node proxy's (gridgate's own share of the gap).
   */
  nodeFloor: { vsNginx: number; vsGrid4: number; gridgateShare: number; goal: Met };
  /** gridgate p50 − direct p50 with one connection, ms; also nginx's and Grid 4's for comparison. */
  addedP50Ms: Record<'nginx' | 'grid4' | 'gridgate', number> & { ggr?: number; goal: Met };
  /** The goal holds when neither phase's peak RSS grew by the threshold. */
  largeResponse: ProxyRun['largeResponse'] & { fastGrowthBytes: number; slowGrowthBytes: number; goal: Met };
  rounds: ProxyRun['rounds'];
}

interface Ratio {
  ratio: number;
  perRound: number[];
  goal: Met;
}

export function proxyReport(run: ProxyRun): ProxyReport {
  const measured = <T>(path: ProxyPathName, figure: T | undefined): T => {
    if (figure === undefined) throw new Error(`no figure for ${path}`);
    return figure;
  };
  const paths = Object.fromEntries(
    run.paths.map((path) => {
      const throughput = run.rounds.map((round) => measured(path, round.throughput[path]));
      const latency = run.rounds.map((round) => measured(path, round.latency[path]));
      const rps = throughput.map((r) => r.requestsPerSecond);
      return [
        path,
        {
          requestsPerSecond: median(rps),
          requestsPerSecondRange: [Math.min(...rps), Math.max(...rps)],
          loadedP50Ms: median(throughput.map((r) => r.p50Ms)),
          loadedP99Ms: median(throughput.map((r) => r.p99Ms)),
          p50Ms: median(latency.map((r) => r.p50Ms)),
          p99Ms: median(latency.map((r) => r.p99Ms)),
          socketErrors: [...throughput, ...latency].reduce((sum, r) => sum + r.socketErrors, 0),
          cpuPer10k: { loaded: cpuPer10k(throughput), oneByOne: cpuPer10k(latency) },
        } satisfies PathSummary,
      ];
    }),
  ) as PerPath<PathSummary>;
  const ratio = (other: ProxyPathName, goal: number): Ratio => {
    const value = paths.gridgateServer.requestsPerSecond / measured(other, paths[other]).requestsPerSecond;
    const perRound = run.rounds.map(
      (round) =>
        round.throughput.gridgateServer.requestsPerSecond /
        measured(other, round.throughput[other]).requestsPerSecond,
    );
    return { ratio: value, perRound, goal: met(value >= goal) };
  };
  const added = (path: ProxyPathName) => measured(path, paths[path]).p50Ms - paths.direct.p50Ms;
  const gridgateShare = paths.gridgate.requestsPerSecond / paths.plainNode.requestsPerSecond;
  const large = run.largeResponse;
  const growth = (phase: LargeResponsePhase) => phase.peakRssBytes - phase.rssBeforeBytes;
  const [fastGrowthBytes, slowGrowthBytes] = [growth(large.fast), growth(large.slow)];
  return {
    plan: run.plan,
    seleniumGridVersion: run.seleniumGridVersion,
    gridgateWorkers: run.gridgateWorkers,
    paths,
    vsOneProcess: paths.gridgateServer.requestsPerSecond / paths.gridgate.requestsPerSecond,
    skipped: run.skipped,
    vsNginx: ratio('nginx', PROXY_TARGETS.vsNginx),
    vsGrid4: ratio('grid4', PROXY_TARGETS.vsGrid4),
    ...(paths.ggr ? { vsGgr: ratio('ggr', PROXY_TARGETS.vsGgr) } : {}),
    nodeFloor: {
      vsNginx: paths.plainNode.requestsPerSecond / paths.nginx.requestsPerSecond,
      vsGrid4: paths.plainNode.requestsPerSecond / paths.grid4.requestsPerSecond,
      gridgateShare,
      goal: met(gridgateShare >= PROXY_TARGETS.vsPlainNode),
    },
    addedP50Ms: {
      nginx: added('nginx'),
      grid4: added('grid4'),
      gridgate: added('gridgate'),
      ...(paths.ggr ? { ggr: added('ggr') } : {}),
      goal: met(added('gridgate') < PROXY_TARGETS.addedP50Ms),
    },
    largeResponse: {
      ...large,
      fastGrowthBytes,
      slowGrowthBytes,
      goal: met(Math.max(fastGrowthBytes, slowGrowthBytes) < PROXY_TARGETS.largeResponseGrowthBytes),
    },
    rounds: run.rounds,
  };
}

const pathLabel = (path: ProxyPathName, workers: number): string =>
  ({
    direct: 'direct (fake upstream)',
    nginx: 'nginx reverse proxy (1 worker)',
    grid4: 'Selenium Grid 4 relay',
    ggr: 'ggr (Go Grid Router)',
    gridgate: 'gridgate, one process (hub pool)',
    gridgateServer: `gridgate, npm start (${workers} workers)`,
    plainNode: 'plain Node proxy (the floor)',
  })[path];

function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const ratioRange = (values: number[]) =>
  `rounds ${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;

const seconds = (value: number) => value.toFixed(2);
const intervalText = (s: MedianInterval) => `${seconds(s.median)} (${seconds(s.low)}–${seconds(s.high)})`;

/** CPU per 10,000 requests per path, and each path's over nginx's and ggr's (ratio of the medians). */
function formatCpuTable(report: ProxyReport): string {
  const { paths } = report;
  const measured = Object.keys(paths) as ProxyPathName[];
  const confidence = (paths.direct.cpuPer10k.oneByOne.confidence * 100).toFixed(1);
  const over = (path: ProxyPathName, base: ProxyPathName | undefined) => {
    const other = base && paths[base];
    return other && path !== 'direct'
      ? ((paths[path] as PathSummary).cpuPer10k.oneByOne.median / other.cpuPer10k.oneByOne.median).toFixed(2)
      : '';
  };
  return [
    `CPU seconds (user + system, /proc) of each path's own processes per 10,000 requests: median over rounds (${confidence} % interval for the median); direct is the upstream's own`,
    table(
      ['path', `c${report.plan.connections}`, 'c1 (one by one)', 'c1 ÷ nginx', 'c1 ÷ ggr'],
      measured.map((path) => {
        const s = paths[path] as PathSummary;
        return [
          pathLabel(path, report.gridgateWorkers),
          intervalText(s.cpuPer10k.loaded),
          intervalText(s.cpuPer10k.oneByOne),
          over(path, 'nginx'),
          over(path, paths.ggr ? 'ggr' : undefined),
        ];
      }),
    ),
  ].join('\n');
}

export function formatProxyReport(report: ProxyReport): string {
  const { plan, paths, largeResponse: large } = report;
  return [
    `Proxy throughput and latency: fake W3C upstream (nginx, instant answers), GET /session/{id}/title;`,
    `${plan.rounds} interleaved rounds of wrk -t1 -c${plan.connections} -d${plan.throughputSeconds}s (requests/s, loaded latency) and -c1 -d${plan.latencySeconds}s (latency); medians over rounds`,
    table(
      [
        'path',
        'req/s',
        'range',
        `p50 ms (c${plan.connections})`,
        'p99',
        'p50 ms (c1)',
        'p99',
        '+p50 ms',
        'errors',
      ],
      (Object.keys(paths) as ProxyPathName[]).map((path) => {
        const s = paths[path] as PathSummary;
        return [
          pathLabel(path, report.gridgateWorkers),
          s.requestsPerSecond.toFixed(0),
          `${s.requestsPerSecondRange[0].toFixed(0)}–${s.requestsPerSecondRange[1].toFixed(0)}`,
          s.loadedP50Ms.toFixed(3),
          s.loadedP99Ms.toFixed(3),
          s.p50Ms.toFixed(3),
          s.p99Ms.toFixed(3),
          path === 'direct' ? '' : `+${(s.p50Ms - paths.direct.p50Ms).toFixed(3)}`,
          String(s.socketErrors),
        ];
      }),
    ),
    `gridgate as users run it: npm start, ${report.gridgateWorkers} worker processes (${(report.vsOneProcess).toFixed(2)}× one gridgate process); the one process is what ÷ plain Node and the added p50 compare`,
    `=> gridgate ÷ nginx requests/s ${report.vsNginx.ratio.toFixed(2)} (${ratioRange(report.vsNginx.perRound)})  goal ≥ ${PROXY_TARGETS.vsNginx}  ${report.vsNginx.goal}`,
    `=> gridgate ÷ Grid 4 requests/s ${report.vsGrid4.ratio.toFixed(2)} (${ratioRange(report.vsGrid4.perRound)})  goal ≥ ${PROXY_TARGETS.vsGrid4}  ${report.vsGrid4.goal}`,
    report.vsGgr
      ? `=> gridgate ÷ ggr requests/s ${report.vsGgr.ratio.toFixed(2)} (${ratioRange(report.vsGgr.perRound)})  goal ≥ ${PROXY_TARGETS.vsGgr}  ${report.vsGgr.goal}`
      : `=> gridgate ÷ ggr: not measured (${report.skipped.ggr})`,
    `=> gridgate ÷ plain Node proxy requests/s ${report.nodeFloor.gridgateShare.toFixed(2)}  goal ≥ ${PROXY_TARGETS.vsPlainNode}  ${report.nodeFloor.goal}   (plain Node proxy ÷ nginx ${report.nodeFloor.vsNginx.toFixed(2)}, ÷ Grid 4 ${report.nodeFloor.vsGrid4.toFixed(2)})`,
    `=> gridgate added p50 over direct (one connection) ${report.addedP50Ms.gridgate.toFixed(3)} ms  goal < ${PROXY_TARGETS.addedP50Ms} ms  ${report.addedP50Ms.goal}   (nginx +${report.addedP50Ms.nginx.toFixed(3)}, Grid 4 +${report.addedP50Ms.grid4.toFixed(3)}${report.addedP50Ms.ggr === undefined ? '' : `, ggr +${report.addedP50Ms.ggr.toFixed(3)}`})`,
    '',
    formatCpuTable(report),
    '',
    `Large response through gridgate (GET …/screenshot, ${mib(large.bytes)} MiB), peak RSS of the gridgate process:`,
    table(
      ['reader', 'seconds', 'RSS before MiB', 'peak MiB', 'growth MiB'],
      (
        [
          [
            `1 slow (${mib(SLOW_READER_BYTES_PER_S)} MiB/s)`,
            large.slow,
            report.largeResponse.slowGrowthBytes,
          ],
          [
            `${large.fast.seconds.length} fast, one after another`,
            large.fast,
            report.largeResponse.fastGrowthBytes,
          ],
        ] as const
      ).map(([name, phase, growthBytes]) => [
        name,
        phase.seconds.map((s) => s.toFixed(2)).join(', '),
        mib(phase.rssBeforeBytes),
        `${mib(phase.peakRssBytes)} (${phase.peakFrom})`,
        mib(growthBytes),
      ]),
    ),
    `=> peak RSS growth ${mib(Math.max(report.largeResponse.fastGrowthBytes, report.largeResponse.slowGrowthBytes))} MiB  goal < ${mib(PROXY_TARGETS.largeResponseGrowthBytes)} MiB  ${report.largeResponse.goal}`,
  ].join('\n');
}
