/**
 * What the production build loads before a request needs it, since each module a process loads stays in
 * its memory for good (bench/README.md, "Memory"): the zip libraries, `ws` and prom-client are not in what
 * the entry loads at start, the build's text is ASCII (V8 keeps a source with one other character at two
 * bytes a character), and neither an idle server nor a worker that only relays commands loads Node's own
 * fetch (its bundled undici, which reading the global Request, Response or Headers loads).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureServerBuild } from '../../scripts/server-build.mjs';
import { W3C_CHROME } from '../support/fake-grid';
import { FakeUpstream, jsonAnswer } from '../support/fakes';
import { type NodeServerProcess, startNodeServer } from '../support/node-server-process';
import { until } from '../support/until';

const NODE_FETCH = 'NativeModule internal/deps/undici/undici';

let server: NodeServerProcess | undefined;
let hub: FakeUpstream | undefined;
let probeDir: string | undefined;
afterEach(async () => {
  server?.dispose();
  await server?.exited;
  await hub?.close();
  // A worker may still write once as it exits.
  if (probeDir) rmSync(probeDir, { recursive: true, force: true, maxRetries: 5 });
  server = hub = probeDir = undefined;
});

/** The entry and every chunk it imports statically, at any depth: what a start evaluates. */
function loadedAtStart(entry: string): string[] {
  const seen = new Set<string>();
  const queue = [entry];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, chunk] of readFileSync(file, 'utf8').matchAll(/^\} from "(\.{1,2}\/[^"]+)";$/gm))
      queue.push(join(dirname(file), chunk as string));
  }
  return [...seen];
}

function everyFile(entry: string): string[] {
  const chunks = join(dirname(entry), 'chunks');
  return [entry, ...readdirSync(chunks).map((name) => join(chunks, name))];
}

describe('what the production build loads', () => {
  it('leaves ws, yazl and yauzl out of what a start loads, for the first WebSocket, download or upload', async () => {
    const entry = await ensureServerBuild();
    const atStart = loadedAtStart(entry).map((file) => readFileSync(file, 'utf8'));
    expect(atStart.length).toBeGreaterThan(1);
    const all = everyFile(entry).map((file) => readFileSync(file, 'utf8'));
    // esbuild names each module it bundles in a comment (the build is not minified).
    for (const library of ['node_modules/ws/', 'node_modules/yazl/', 'node_modules/yauzl/']) {
      expect(atStart.some((text) => text.includes(library))).toBe(false);
      expect(all.some((text) => text.includes(library))).toBe(true);
    }
    expect(atStart.some((text) => text.includes('node_modules/undici/lib/dispatcher/agent.js'))).toBe(true);
  });

  it('leaves prom-client out of what a start loads, for the first measurement or scrape', async () => {
    const entry = await ensureServerBuild();
    const atStart = loadedAtStart(entry).map((file) => readFileSync(file, 'utf8'));
    const all = everyFile(entry).map((file) => readFileSync(file, 'utf8'));
    expect(atStart.some((text) => text.includes('node_modules/prom-client/'))).toBe(false);
    expect(all.some((text) => text.includes('node_modules/prom-client/'))).toBe(true);
  });

  it('is ASCII only', async () => {
    for (const file of everyFile(await ensureServerBuild()))
      expect({ file, nonAscii: readFileSync(file, 'utf8').match(/[\u0080-\uffff]/g) ?? [] }).toEqual({
        file,
        nonAscii: [],
      });
  });

  it("loads Node's own fetch neither at idle nor in a worker that only relays commands", async () => {
    hub = await FakeUpstream.start();
    hub.respond = () => jsonAnswer(200, { value: 'the title' });
    probeDir = mkdtempSync(join(tmpdir(), 'gridgate-modules-'));
    const probe = join(probeDir, 'probe.mjs');
    // Each process (the primary, each worker) writes the modules it has loaded every 100 ms.
    const write = `writeFileSync(${JSON.stringify(probeDir)} + '/' + process.pid, process.moduleLoadList.join('\\n'))`;
    await import('node:fs').then(({ writeFileSync }) =>
      writeFileSync(
        probe,
        `import { writeFileSync } from 'node:fs';\nsetInterval(() => ${write}, 100).unref();\n`,
      ),
    );
    server = startNodeServer(
      {
        port: 0,
        host: '127.0.0.1',
        workers: 2,
        browsers: { chrome: { defaultVersion: '1.0', versions: { '1.0': { pools: ['hub'] } } } },
        pools: { hub: { kind: 'hub', url: `http://${hub.address}` } },
      },
      { NODE_OPTIONS: `--import ${probe}` },
    );
    const url = await server.url;
    const running = server;
    const dir = probeDir;
    const primary = running.child.pid as number;
    const workers = () =>
      running.lines.filter((l) => l.event === 'WORKER_STARTED').map((l) => l.pid as number);
    const modules = (pid: number) => readFileSync(join(dir, String(pid)), 'utf8');
    await until(
      () =>
        workers().length === 2 && [primary, ...workers()].every((pid) => existsSync(join(dir, String(pid)))),
      'every process wrote its modules',
    );
    const settled = () => new Promise((resolve) => setTimeout(resolve, 300));
    await settled();
    for (const pid of [primary, ...workers()])
      expect({ pid, fetch: modules(pid).includes(NODE_FETCH) }).toEqual({ pid, fetch: false });

    // A new session (relayed to the primary, which answers it with the app), then commands (served by
    // the workers on the Node-native path, each connection by one of them).
    const session = await fetch(`${url}/session`, {
      method: 'POST',
      body: JSON.stringify(W3C_CHROME),
      headers: { 'content-type': 'application/json' },
    });
    expect(session.status).toBe(200);
    const { sessionId } = ((await session.json()) as { value: { sessionId: string } }).value;
    for (let i = 0; i < 4; i++) {
      const command = await fetch(`${url}/session/${sessionId}/title`, { headers: { connection: 'close' } });
      expect(await command.json()).toEqual({ value: 'the title' });
    }
    await settled();
    expect(modules(primary)).toContain(NODE_FETCH);
    for (const pid of workers())
      expect({ pid, fetch: modules(pid).includes(NODE_FETCH) }).toEqual({ pid, fetch: false });
  }, 60_000);
});
