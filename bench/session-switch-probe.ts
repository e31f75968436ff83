/**
 * A probe, not a part of `npm run bench`: what a suite pays when it changes capabilities between tests, as
 * web-platform-tests' `session` fixture does (an `unhandledPromptBehavior` per group of tests): a session is
 * ended and the next one opened at once, and the next test's first commands follow its start. On a bare
 * chromedriver and through gridgate with `isolation` "namespace" and "none", by turns, each path then left
 * quiet for a few seconds so that what one path starts in the background does not land in another's turn.
 *
 *   npx tsx bench/session-switch-probe.ts [turns, default 10] [pause after the start in ms, default 0]
 *
 * The pause is the control: with one of a second or more, whatever a path still does after answering the new
 * session is over before the first command.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { medianInterval } from './stats';
import { type SessionPath, startSessionPaths } from './three-session-paths';
import { WebDriverClient } from './webdriver-client';

const STEPS = [
  'delete',
  'create',
  'first title',
  'window size',
  'window position',
  'open alert',
  'title',
] as const;
type Step = (typeof STEPS)[number];
const BEHAVIOURS = ['dismiss', 'accept', 'ignore', 'dismiss and notify'];
const QUIET_MS = 3000;

const [turns, pauseMs] = [Number(process.argv[2] ?? 10), Number(process.argv[3] ?? 0)];
const { paths, pagePort, close } = await startSessionPaths(
  () => '<!doctype html><title>p</title><script>alert("x")</script>',
);
const client = new WebDriverClient();
const times = new Map<SessionPath, Record<Step | 'all', number[]>>(
  paths.map((path) => [path, Object.fromEntries([...STEPS, 'all'].map((step) => [step, []])) as never]),
);

async function timed<T>(path: SessionPath, step: Step, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  times.get(path)?.[step].push(performance.now() - started);
  return result;
}

/** One test's worth after a capability change: the old session ends, the new one starts, its commands. */
async function switchSession(path: SessionPath, previous: string, turn: number): Promise<string> {
  const started = performance.now();
  await timed(path, 'delete', () => client.deleteSession(path.origin, previous));
  const capabilities = {
    ...path.capabilities,
    unhandledPromptBehavior: BEHAVIOURS[turn % BEHAVIOURS.length],
  };
  const id = await timed(path, 'create', () => client.newSession(path.origin, capabilities));
  if (pauseMs > 0) await sleep(pauseMs);
  const base = `/session/${id}`;
  await timed(path, 'first title', () => client.send(path.origin, 'GET', `${base}/title`));
  const rect = (body: object) => client.send(path.origin, 'POST', `${base}/window/rect`, body);
  await timed(path, 'window size', () => rect({ width: 800, height: 600 }));
  await timed(path, 'window position', () => rect({ x: 0, y: 0 }));
  const page = `http://localhost:${pagePort}/`;
  await timed(path, 'open alert', () => client.send(path.origin, 'POST', `${base}/url`, { url: page }));
  // The open alert is handled as the session's behaviour says; what matters is the time, not the answer.
  await timed(path, 'title', () => client.send(path.origin, 'GET', `${base}/title`).catch(() => undefined));
  times.get(path)?.all.push(performance.now() - started - pauseMs);
  return id;
}

try {
  const open = new Map<SessionPath, string>();
  for (const path of paths) open.set(path, await client.newSession(path.origin, path.capabilities));
  for (let turn = 0; turn < turns; turn++) {
    for (const path of turn % 2 ? [...paths].reverse() : paths) {
      open.set(path, await switchSession(path, open.get(path) as string, turn));
      await sleep(QUIET_MS);
    }
  }
  for (const [path, id] of open) await client.deleteSession(path.origin, id).catch(() => undefined);
  for (const [path, samples] of times) {
    const line = Object.entries(samples).map(([step, values]) => {
      const m = medianInterval(values);
      return `${step} ${m.median.toFixed(0)} (${m.low.toFixed(0)}–${m.high.toFixed(0)})`;
    });
    console.log(`${path.name.padEnd(18)} ms p50 (interval): ${line.join('  ')}`);
  }
} finally {
  await close();
  await client.close();
}
