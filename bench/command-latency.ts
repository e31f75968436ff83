/**
 * Per-command latency: the same cheap, realistic command mix against one session on each path,
 * the paths taking turns, so drift (thermal, other load) hits every path alike.
 */
import type { BenchOptions } from './options';
import { runRounds } from './rounds';
import { median } from './stats';
import type { WebDriverClient } from './webdriver-client';

/** The two paths the issue compares: a bare chromedriver, and gridgate. */
export type PathName = 'direct' | 'gridgate';
/**
 * The command benchmark adds three on the same browser as `gridgate`: straight to the chromedriver
 * behind the gridgate session (`sameBrowser`), and through two reference proxies in front of it,
 * nginx and a plain Node proxy (reference-proxies.ts); and `ggr`, the router gridgate replaces, in front
 * of a chromedriver and browser of its own (ggr-browser.ts), where its binary is there.
 */
export type CommandPathName = PathName | 'sameBrowser' | 'nginx' | 'plainNode' | 'ggr';
export const COMMAND_PATHS: readonly CommandPathName[] = [
  'direct',
  'gridgate',
  'sameBrowser',
  'nginx',
  'plainNode',
  'ggr',
];

/** Something per path; ggr's only when it was measured. */
export type PerCommandPath<T> = Record<Exclude<CommandPathName, 'ggr'>, T> & Partial<Record<'ggr', T>>;

/** Where a session's commands go: a chromedriver itself, or gridgate in front of one. */
export interface SessionPath {
  name: CommandPathName;
  origin: string;
  sessionId: string;
}

export const COMMANDS = [
  'GET /title',
  'POST /execute/sync',
  'GET /url',
  'POST /element',
  'GET /element/{id}/text',
] as const;
export type CommandName = (typeof COMMANDS)[number];

/** The probes' turn (command-turns-probe.ts, node-floor-probe.ts): four commands of the mix, all but the element's text. */
export const PROBE_MIX = [
  ['GET', '/title', undefined],
  ['POST', '/execute/sync', { script: 'return 6 * 7;', args: [] }],
  ['GET', '/url', undefined],
  ['POST', '/element', { using: 'css selector', value: '#greeting' }],
] as const;

const TITLE = 'gridgate bench';
const GREETING = 'Hello, bench';
// A data: URL keeps the page on this machine without a server, and both browsers load the same bytes.
export const BENCH_PAGE = `data:text/html;charset=utf-8,${encodeURIComponent(
  `<!doctype html><title>${TITLE}</title><h1 id="greeting">${GREETING}</h1>`,
)}`;
const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf'; // W3C §12.1 web element identifier

export type Samples = Record<CommandName, number[]>;

export interface CommandLatencyRun {
  samples: PerCommandPath<Samples>;
  /** Per round, each path's median over all its commands in that round. */
  rounds: PerCommandPath<number>[];
  /** Commands sent through gridgate, warm-up included. */
  sent: number;
  /**
   * CPU seconds each metered process spent during its path's own turns (warm-up included): a proxy's command
   * path, apart from its background work while the other paths take their turns.
   */
  turnsCpu: Partial<Record<CommandPathName, number>>;
}

/** A process's CPU so far, in ns (process-cpu.ts threadsCpuNanos), read around each of its path's turns. */
export type TurnMeters = Partial<Record<CommandPathName, () => number>>;

export type CommandLatencyPlan = BenchOptions['commands'];

/** Opens the page the command mix reads (outside any timing). */
export async function openBenchPage(client: WebDriverClient, path: SessionPath): Promise<void> {
  await client.send(path.origin, 'POST', `/session/${path.sessionId}/url`, { url: BENCH_PAGE });
}

/**
 * The paths take turns mix by mix, so all see the same moment's load on a shared machine: a turn is
 * direct, gridgate, direct, same browser, direct, nginx, direct, plain Node, ggr (then the other way
 * round). The direct browser and gridgate's alternate and get the same traffic, which matters: a browser
 * used twice as often answers 3–6 % faster here. ggr's browser serves ggr alone, a quarter of the others'
 * traffic, so ggr ÷ direct holds that difference too; its turn adds no direct turn, which would unbalance
 * the issue's ratio. A round groups `iterations` turns; rounds show how stable the ratio is.
 */
export async function measureCommandLatency(
  client: WebDriverClient,
  paths: PerCommandPath<SessionPath>,
  plan: CommandLatencyPlan,
  meters: TurnMeters = {},
): Promise<CommandLatencyRun> {
  const present = measuredPaths(paths);
  const pathOf = (name: CommandPathName) => paths[name] as SessionPath;
  const turnsNanos: Partial<Record<CommandPathName, number>> = {};
  const runTurn = async (name: CommandPathName, into: Samples) => {
    const meter = meters[name];
    if (!meter) return runMix(client, pathOf(name), into);
    const before = meter();
    await runMix(client, pathOf(name), into);
    turnsNanos[name] = (turnsNanos[name] ?? 0) + meter() - before;
  };
  for (let i = 0; i < plan.warmup; i++) {
    for (const name of turnOrder(i, present)) await runTurn(name, emptySamples());
  }
  const samples = perPath(present, emptySamples);
  const rounds: CommandLatencyRun['rounds'] = [];
  await runRounds(plan, async (round) => {
    const inRound = perPath(present, emptySamples);
    for (let i = 0; i < plan.iterations; i++) {
      for (const name of turnOrder(round + i, present)) await runTurn(name, inRound[name] as Samples);
    }
    for (const name of present) {
      const into = samples[name] as Samples;
      const from = inRound[name] as Samples;
      for (const command of COMMANDS) into[command].push(...from[command]);
    }
    rounds.push(
      perPath(present, (name) => median(COMMANDS.flatMap((command) => (inRound[name] as Samples)[command]))),
    );
  });
  return {
    samples,
    rounds,
    sent: (plan.warmup + rounds.length * plan.iterations) * COMMANDS.length,
    turnsCpu: Object.fromEntries(Object.entries(turnsNanos).map(([name, nanos]) => [name, nanos / 1e9])),
  };
}

/**
 * V8 optimizes a Node process's request path only after thousands of requests: here a bare Node proxy
 * in front of a browser spent 1.4 ms of CPU per request over its first thousand, 0.8 over the second
 * and ~0.4 from the third on. A router serving test suites lives in that steady state, so every path
 * first gets `count` fast commands, in turns (Get and Set Timeouts: chromedriver answers them without
 * the browser, ~1 ms each, so Chromium's own state is untouched).
 */
export async function warmRuntimes(
  client: WebDriverClient,
  paths: PerCommandPath<SessionPath>,
  count: number,
): Promise<void> {
  const present = measuredPaths(paths);
  for (let i = 0; i < count; i++) {
    for (const name of present) {
      const { origin, sessionId } = paths[name] as SessionPath;
      if (i % 2 === 0) await client.send(origin, 'GET', `/session/${sessionId}/timeouts`);
      else await client.send(origin, 'POST', `/session/${sessionId}/timeouts`, { implicit: 0 });
    }
  }
}

/** The paths that have a session, in COMMAND_PATHS' order. */
export const measuredPaths = (paths: PerCommandPath<unknown>): CommandPathName[] =>
  COMMAND_PATHS.filter((name) => paths[name] !== undefined);

const TURNS: readonly (readonly CommandPathName[])[] = [
  ['direct', 'gridgate', 'direct', 'sameBrowser', 'direct', 'nginx', 'direct', 'plainNode', 'ggr'],
  ['direct', 'ggr', 'plainNode', 'direct', 'nginx', 'direct', 'sameBrowser', 'direct', 'gridgate'],
];

/** The k-th turn's order, of the paths `present` (ggr's turn goes where it was not started). */
export const turnOrder = (k: number, present: readonly CommandPathName[]): CommandPathName[] =>
  (TURNS[k % TURNS.length] as readonly CommandPathName[]).filter((name) => present.includes(name));

function perPath<T>(
  present: readonly CommandPathName[],
  make: (name: CommandPathName) => T,
): PerCommandPath<T> {
  return Object.fromEntries(present.map((name) => [name, make(name)])) as PerCommandPath<T>;
}

function emptySamples(): Samples {
  return Object.fromEntries(COMMANDS.map((command) => [command, []])) as unknown as Samples;
}

/** One pass of the mix; each answer is checked, so a path that answers wrongly fails the run. */
async function runMix(client: WebDriverClient, path: SessionPath, into: Samples): Promise<void> {
  const base = `/session/${path.sessionId}`;
  const send = async (command: CommandName, method: 'GET' | 'POST', suffix: string, body?: unknown) => {
    const answer = await client.send(path.origin, method, `${base}${suffix}`, body);
    into[command].push(answer.ms);
    return answer.value;
  };
  expect(path, 'title', await send('GET /title', 'GET', '/title'), TITLE);
  expect(
    path,
    'script result',
    await send('POST /execute/sync', 'POST', '/execute/sync', { script: 'return 6 * 7;', args: [] }),
    42,
  );
  expect(path, 'URL', await send('GET /url', 'GET', '/url'), BENCH_PAGE);
  const element = await send('POST /element', 'POST', '/element', {
    using: 'css selector',
    value: '#greeting',
  });
  const elementId = (element as Record<string, unknown> | null)?.[ELEMENT_KEY];
  if (typeof elementId !== 'string')
    throw new Error(`${path.name}: no element found: ${JSON.stringify(element)}`);
  expect(path, 'text', await send('GET /element/{id}/text', 'GET', `/element/${elementId}/text`), GREETING);
}

function expect(path: SessionPath, what: string, actual: unknown, wanted: unknown): void {
  if (actual !== wanted) {
    throw new Error(
      `${path.name}: ${what} was ${JSON.stringify(actual)}, expected ${JSON.stringify(wanted)}`,
    );
  }
}
