/**
 * What the grid's console and network capture costs (bench/README.md, `--only capture`): sessions that ask
 * for nothing and sessions that ask for both (`gridgate:options` {console, network}), in alternating rounds
 * (ABBA), each running the same commands on a loopback page: `POST /execute/sync` of a script that writes a
 * console line and fetches a small file (one console entry and one request per command, the capture's worst
 * case), and `GET /title`, which makes no event. Measured per kind: each command's wall-clock time, gridgate's
 * CPU (the primary and its workers, from /proc) per 1,000 commands, Chromium's CPU likewise, how long the
 * session's DELETE takes (the HAR is written then), and the HAR's and console log's size.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GridgateServer } from './gridgate-server';
import { commandLine, cpuSeconds, descendants } from './process-tree';
import { median } from './stats';
import type { WebDriverClient } from './webdriver-client';

export type CaptureKind = 'plain' | 'capture';

export interface CaptureSample {
  kind: CaptureKind;
  commands: number;
  /** Each command's wall-clock milliseconds. */
  executeMs: number[];
  titleMs: number[];
  /** CPU seconds used while the commands ran. */
  gridgate: number;
  chromium: number;
  deleteMs: number;
  harBytes?: number;
  consoleBytes?: number;
}

export interface CaptureKindCost {
  /** Median over every command of the kind, in ms. */
  executeMedianMs: number;
  titleMedianMs: number;
  /** CPU milliseconds per 1,000 commands, as the median of the rounds'. */
  gridgateCpuMsPer1000: number;
  chromiumCpuMsPer1000: number;
  deleteMedianMs: number;
}

export interface CaptureCost {
  samples: CaptureSample[];
  plain: CaptureKindCost;
  capture: CaptureKindCost;
  /** Bytes of HAR per request captured, and of console log per line. */
  harBytesPerRequest: number;
  consoleBytesPerLine: number;
}

const PAGE = '<!doctype html><title>capture bench</title><p>capture bench</p>';
const PING = '{"ok":true}';
// A promise returned by Execute Script is waited for (WebDriver §13.2.1): the request is inside the command.
const BUSY = "console.log('step', arguments[0]); return fetch('/ping').then((answer) => answer.status);";

export async function measureCaptureCost(
  client: WebDriverClient,
  grid: GridgateServer,
  options: { rounds: number; commands: number },
): Promise<CaptureCost> {
  const site = await startSite();
  try {
    const samples: CaptureSample[] = [];
    for (let round = 0; round < options.rounds; round++) {
      // ABBA: drift on a shared machine falls on both kinds alike.
      const order: CaptureKind[] = round % 2 === 0 ? ['plain', 'capture'] : ['capture', 'plain'];
      for (const kind of order) samples.push(await sample(client, grid, site.url, kind, options.commands));
    }
    const captured = samples.filter((s) => s.kind === 'capture');
    const sum = (pick: (s: CaptureSample) => number) => captured.reduce((total, s) => total + pick(s), 0);
    return {
      samples,
      plain: costOf(samples.filter((s) => s.kind === 'plain')),
      capture: costOf(captured),
      // Each command made one request and one console line; the page itself is one request more.
      harBytesPerRequest: sum((s) => s.harBytes ?? 0) / sum((s) => s.commands + 1),
      consoleBytesPerLine: sum((s) => s.consoleBytes ?? 0) / sum((s) => s.commands),
    };
  } finally {
    await site.close();
  }
}

function costOf(samples: CaptureSample[]): CaptureKindCost {
  const perThousand = (pick: (s: CaptureSample) => number) =>
    median(samples.map((s) => (pick(s) * 1000 * 1000) / (2 * s.commands)));
  return {
    executeMedianMs: median(samples.flatMap((s) => s.executeMs)),
    titleMedianMs: median(samples.flatMap((s) => s.titleMs)),
    gridgateCpuMsPer1000: perThousand((s) => s.gridgate),
    chromiumCpuMsPer1000: perThousand((s) => s.chromium),
    deleteMedianMs: median(samples.map((s) => s.deleteMs)),
  };
}

async function sample(
  client: WebDriverClient,
  grid: GridgateServer,
  site: string,
  kind: CaptureKind,
  commands: number,
): Promise<CaptureSample> {
  const asked = kind === 'capture' ? { 'gridgate:options': { console: true, network: true } } : {};
  const id = await client.newSession(grid.origin, { browserName: 'chrome', ...asked });
  try {
    await client.send(grid.origin, 'POST', `/session/${id}/url`, { url: `${site}/` });
    const executeMs: number[] = [];
    const titleMs: number[] = [];
    const before = usage(grid.pid);
    for (let step = 0; step < commands; step++) {
      const busy = await client.send(grid.origin, 'POST', `/session/${id}/execute/sync`, {
        script: BUSY,
        args: [step],
      });
      if (busy.value !== 200) throw new Error(`the page's fetch answered ${String(busy.value)}`);
      executeMs.push(busy.ms);
      titleMs.push((await client.send(grid.origin, 'GET', `/session/${id}/title`)).ms);
    }
    const after = usage(grid.pid);
    const deleting = performance.now();
    await client.deleteSession(grid.origin, id);
    const deleteMs = performance.now() - deleting;
    return {
      kind,
      commands,
      executeMs,
      titleMs,
      gridgate: after.gridgate - before.gridgate,
      chromium: after.chromium - before.chromium,
      deleteMs,
      ...(kind === 'capture' ? await capturedSizes(grid.origin, id) : {}),
    };
  } catch (error) {
    await client.deleteSession(grid.origin, id).catch(() => undefined);
    throw error;
  }
}

/** CPU seconds so far of gridgate (its primary and worker processes) and of its Chromium processes. */
function usage(primary: number) {
  const processes = descendants(primary).map((pid) => ({ pid, program: commandLine(pid)[0] ?? '' }));
  const sum = (match: (program: string) => boolean) =>
    processes.filter((p) => match(p.program)).reduce((total, p) => total + cpuSeconds(p.pid), 0);
  return {
    gridgate: cpuSeconds(primary) + sum((program) => /(^|\/)node$/.test(program)),
    chromium: sum((program) => program.includes('chrom') && !program.endsWith('chromedriver')),
  };
}

async function capturedSizes(origin: string, id: string) {
  const size = async (path: string) => {
    const answer = await fetch(`${origin}${path}`);
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
    return (await answer.arrayBuffer()).byteLength;
  };
  return { harBytes: await size(`/har/${id}.har`), consoleBytes: await size(`/console/${id}.log`) };
}

/** The page and the small file it fetches, on loopback. */
async function startSite(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const ping = request.url === '/ping';
    response.writeHead(200, { 'content-type': ping ? 'application/json' : 'text/html; charset=utf-8' });
    response.end(ping ? PING : PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function formatCaptureCost(cost: CaptureCost): string {
  const { plain, capture } = cost;
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  const row = (what: string, a: number, b: number, unit = ms) =>
    `  ${what.padEnd(36)}${unit(a).padStart(12)}${unit(b).padStart(12)}${`${b >= a ? '+' : ''}${(b - a).toFixed(2)}`.padStart(10)}`;
  return [
    'Console and network capture (gridgate:options {console, network}) against a plain session, same run:',
    `  ${''.padEnd(36)}${'plain'.padStart(12)}${'capture'.padStart(12)}${'diff'.padStart(10)}`,
    row('execute (console line + fetch), p50', plain.executeMedianMs, capture.executeMedianMs),
    row('GET /title (no event), p50', plain.titleMedianMs, capture.titleMedianMs),
    row('gridgate CPU per 1,000 commands', plain.gridgateCpuMsPer1000, capture.gridgateCpuMsPer1000),
    row('Chromium CPU per 1,000 commands', plain.chromiumCpuMsPer1000, capture.chromiumCpuMsPer1000),
    row('DELETE (HAR written), p50', plain.deleteMedianMs, capture.deleteMedianMs),
    `  HAR ${cost.harBytesPerRequest.toFixed(0)} bytes per request; console ${cost.consoleBytesPerLine.toFixed(0)} bytes per line`,
  ].join('\n');
}
