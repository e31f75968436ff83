/**
 * A probe, not a part of `npm run bench`: page loads from a loopback HTTP server, then sessions back to back
 * (create, one command, DELETE), on a bare chromedriver and through gridgate with `isolation` "namespace" and
 * "none", alternating; medians with their intervals. What a suite that ends and opens sessions often pays.
 *
 *   npx tsx bench/session-cycle-probe.ts [page loads, default 40] [sessions, default 8]
 */
import { medianInterval } from './stats';
import { type SessionPath, startSessionPaths } from './three-session-paths';
import { WebDriverClient } from './webdriver-client';

interface Path extends SessionPath {
  times: Record<'navigate' | 'title' | 'create' | 'delete', number[]>;
}

const [pageLoads, sessions] = [Number(process.argv[2] ?? 40), Number(process.argv[3] ?? 8)];
const {
  paths: sessionPaths,
  pagePort,
  close,
} = await startSessionPaths((request) => `<!doctype html><title>p</title><p>${request.url}</p>`);
const client = new WebDriverClient();
const times = () => ({ navigate: [], title: [], create: [], delete: [] });
const paths: Path[] = sessionPaths.map((path) => ({ ...path, times: times() }));
const timed = async (samples: number[], work: () => Promise<unknown>) => {
  const started = performance.now();
  const result = await work();
  samples.push(performance.now() - started);
  return result;
};
const turns = (count: number) =>
  Array.from({ length: count }, (_, i) => (i % 2 ? [...paths].reverse() : paths));

try {
  const open = new Map<Path, string>();
  for (const path of paths) open.set(path, await client.newSession(path.origin, path.capabilities));
  for (const [i, order] of turns(pageLoads).entries()) {
    for (const path of order) {
      const base = `/session/${open.get(path)}`;
      const url = `http://127.0.0.1:${pagePort}/${i}`;
      await timed(path.times.navigate, () => client.send(path.origin, 'POST', `${base}/url`, { url }));
      await timed(path.times.title, () => client.send(path.origin, 'GET', `${base}/title`));
    }
  }
  for (const [path, id] of open) await client.deleteSession(path.origin, id);
  for (const order of turns(sessions)) {
    for (const path of order) {
      const id = (await timed(path.times.create, () =>
        client.newSession(path.origin, path.capabilities),
      )) as string;
      await client.send(path.origin, 'GET', `/session/${id}/title`);
      await timed(path.times.delete, () => client.deleteSession(path.origin, id));
    }
  }
  for (const path of paths) {
    const line = (['navigate', 'title', 'create', 'delete'] as const).map((what) => {
      const m = medianInterval(path.times[what]);
      return `${what} ${m.median.toFixed(1)} (${m.low.toFixed(1)}–${m.high.toFixed(1)})`;
    });
    console.log(`${path.name.padEnd(18)} ms p50 (interval): ${line.join('  ')}`);
  }
} finally {
  await close();
  await client.close();
}
