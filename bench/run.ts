/**
 * `npm run bench`: gridgate against a bare chromedriver on this machine, per command and per new
 * session, printed as ratios against the baseline measured in the same run (bench/README.md).
 */
import { parseConfig } from '../functions/core/config';
import { BENCH_PACKAGES, installTestPackages } from '../scripts/install-test-packages';
import { type CaptureCost, formatCaptureCost, measureCaptureCost } from './capture-cost';
import { commandCpu, readCommandCpu } from './command-cpu';
import { measureCommandLatency, warmRuntimes } from './command-latency';
import type { LocalPool } from './direct-chromedriver';
import { describeEnvironment, type Environment, loadNow } from './environment';
import { ggrSkipReason, startGgrBrowser } from './ggr-browser';
import { GridgateServer } from './gridgate-server';
import { formatLambdaBundleReport, type LambdaBundleReport, measureLambdaBundle } from './lambda-bundle';
import {
  formatMemoryReport,
  MEMORY_PLANS,
  MEMORY_TARGETS,
  type MemoryReport,
  measureMemory,
} from './memory-benchmark';
import { measureNewSessionLatency } from './new-session-latency';
import { type BenchOptions, parseOptions } from './options';
import { threadsCpuNanos } from './process-cpu';
import { measureProxy, PROXY_PLANS } from './proxy-benchmark';
import { takeBrowserlessPart } from './proxy-options';
import { formatProxyReport, PROXY_TARGETS, type ProxyReport, proxyReport } from './proxy-report';
import { formatRecordingCost, measureRecordingCost, type RecordingCost } from './recording-cost';
import {
  type CommandReport,
  commandReport,
  type NewSessionReport,
  newSessionReport,
  TARGETS,
} from './report';
import { formatCommandReport, formatEnvironment, formatNewSessionReport } from './report-table';
import { writeResults } from './results-file';
import { measureScale, SCALE_PLANS } from './scale-benchmark';
import { formatScaleReport, SCALE_TARGETS, type ScaleReport, scaleReport } from './scale-report';
import { openSessionPair } from './session-pair';
import { measureSuite } from './suite-ratio';
import {
  formatSuiteReport,
  SUITE_DEADLINE_MS,
  SUITE_PLANS,
  type SuiteReport,
  suiteReport,
} from './suite-report';
import { installExitHandlers, isStopping, stopEverything } from './teardown';
import { WebDriverClient } from './webdriver-client';

let options: BenchOptions;
const { part: browserless, rest: argv } = takeBrowserlessPart(process.argv.slice(2));
try {
  options = parseOptions(argv, process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
try {
  await installTestPackages(BENCH_PACKAGES, "the benchmarks' Debian packages");
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
installExitHandlers();
// The suite runs a few hundred tests 2 × (rounds × worker counts) times: minutes each.
const deadlineMs = browserless === 'suite' ? SUITE_DEADLINE_MS : options.deadlineMs;
const deadline = setTimeout(() => {
  console.error(`bench: still running after ${deadlineMs / 60_000} min, giving up`);
  const exit = () => process.exit(1);
  stopEverything().then(exit, exit);
}, deadlineMs);
const started = performance.now();
const client = new WebDriverClient();
try {
  // `--only proxy` and `--only scale` need no browser: no gridgate with a local pool, no Chromium version.
  const grid = browserless ? undefined : await GridgateServer.start(options.cpuProfDir, options.warm);
  // The pool gridgate serves by default: the baseline is asked for Chromium exactly as gridgate asks.
  const pool = parseConfig({}, { builtInBrowserVersion: grid?.chromiumVersion ?? 'unused' }).pools
    .local as LocalPool;
  const environment: Environment = {
    ...describeEnvironment(pool.chromedriver),
    chromium: grid?.chromiumVersion ?? 'not used',
  };
  console.log(formatEnvironment(options.preset, environment));

  let commands: CommandReport | undefined;
  if (grid && (options.only === 'all' || options.only === 'commands')) {
    const pair = await openSessionPair(client, grid, pool);
    if (pair.ggrSkipped) console.log(`  ggr: skipped (${pair.ggrSkipped})`);
    await warmRuntimes(client, pair.paths, options.commands.runtimeWarmup);
    const cpuBefore = await grid.cpuMicros();
    const processesBefore = readCommandCpu(pair.pids);
    // Both Node proxies and ggr counted alike: over their own turns, and between them.
    const ggrPid = pair.pids.ggr;
    const run = await measureCommandLatency(client, pair.paths, options.commands, {
      gridgate: () => threadsCpuNanos(grid.pid),
      plainNode: () => threadsCpuNanos(pair.pids.plainNode),
      ...(ggrPid === undefined ? {} : { ggr: () => threadsCpuNanos(ggrPid) }),
    });
    const cpu = (await grid.cpuMicros()) - cpuBefore;
    const perProcess = commandCpu(processesBefore, readCommandCpu(pair.pids), run.sent, run.turnsCpu);
    await pair.close();
    const ggrPath = pair.ggrFlags ? { flags: pair.ggrFlags } : { skipped: pair.ggrSkipped ?? 'not started' };
    commands = commandReport(run, options.commands, pair.flags, cpu, perProcess, ggrPath);
    console.log(`\n${formatCommandReport(commands)}`);
  }
  let newSession: NewSessionReport | undefined;
  if (grid && (options.only === 'all' || options.only === 'new-session')) {
    // ggr and its own chromedriver run through the whole part, as ggr and its hosts are deployed.
    const ggrSkipped = ggrSkipReason();
    if (ggrSkipped) console.log(`  ggr: skipped (${ggrSkipped})`);
    const ggr = ggrSkipped ? undefined : await startGgrBrowser(pool, grid.chromiumVersion);
    try {
      const run = await measureNewSessionLatency(
        client,
        grid.origin,
        grid.pid,
        pool,
        options.newSession,
        ggr,
      );
      newSession = newSessionReport(run, options.newSession, options.warm, ggrSkipped);
    } finally {
      await ggr?.stop();
    }
    console.log(`\n${formatNewSessionReport(newSession)}`);
  }
  let recording: RecordingCost | undefined;
  if (grid && (options.only === 'all' || options.only === 'recording')) {
    recording = await measureRecordingCost(client, grid, options.recording);
    console.log(`\n${formatRecordingCost(recording)}`);
  }
  let capture: CaptureCost | undefined;
  if (grid && (options.only === 'all' || options.only === 'capture')) {
    capture = await measureCaptureCost(client, grid, options.capture);
    console.log(`\n${formatCaptureCost(capture)}`);
  }
  // Stopped before the proxy part, so that its browsers do not load the machine meanwhile.
  await grid?.stop();

  let proxy: ProxyReport | undefined;
  if (browserless === 'proxy' || (!browserless && options.only === 'all')) {
    console.log('\nProxy benchmark: starting nginx, Selenium Grid 4 and gridgate…');
    proxy = proxyReport(await measureProxy(PROXY_PLANS[options.preset], (line) => console.log(line)));
    console.log(`\n${formatProxyReport(proxy)}`);
  }

  let scale: ScaleReport[] | undefined;
  if (browserless === 'scale' || (!browserless && options.only === 'all')) {
    console.log('');
    scale = (await measureScale(client, SCALE_PLANS[options.preset], (line) => console.log(line))).map(
      scaleReport,
    );
    for (const report of scale) console.log(`\n${formatScaleReport(report)}`);
  }

  let memory: MemoryReport | undefined;
  if (browserless === 'memory' || (!browserless && options.only === 'all')) {
    console.log('');
    memory = await measureMemory(MEMORY_PLANS[options.preset], (line) => console.log(line));
    console.log(`\n${formatMemoryReport(memory)}`);
  }

  let suite: SuiteReport | undefined;
  if (browserless === 'suite') {
    console.log(
      '\nSuite: W3C WebDriver tests (pytest) against chromedriver and through gridgate, alternating…',
    );
    suite = suiteReport(await measureSuite(SUITE_PLANS[options.preset], (line) => console.log(line)));
    console.log(`\n${formatSuiteReport(suite)}`);
  }

  let lambdaBundle: LambdaBundleReport | undefined;
  if (options.only === 'all' && !browserless) {
    lambdaBundle = await measureLambdaBundle();
    console.log(`\n${formatLambdaBundleReport(lambdaBundle)}`);
  }

  environment.loadAverage1mAtEnd = loadNow();
  const seconds = (performance.now() - started) / 1000;
  const file = await writeResults(new URL('./results/', import.meta.url), {
    date: new Date().toISOString(),
    preset: options.preset,
    seconds: Math.round(seconds),
    environment,
    client: 'undici Agent, keep-alive, one connection per origin, the same instance for every path',
    targets: { ...TARGETS, proxy: PROXY_TARGETS, scale: SCALE_TARGETS, memory: MEMORY_TARGETS },
    commands,
    newSession,
    recording,
    capture,
    proxy,
    scale,
    memory,
    suite,
    lambdaBundle,
  });
  console.log(
    `\n${seconds.toFixed(0)} s, load ${environment.loadAverage1m.toFixed(2)} → ${environment.loadAverage1mAtEnd.toFixed(2)}; results in ${file.pathname}`,
  );
} catch (error) {
  // Interrupted: the failing requests are only the echo of stopping the browsers.
  if (!isStopping()) console.error(`bench: ${(error as Error).stack ?? error}`);
  process.exitCode = 1;
} finally {
  clearTimeout(deadline);
  await client.close();
  await stopEverything();
}
