/**
 * End to end on real chromedriver and Chromium: what a local session's own code can reach of the grid's
 * machine through its launch options and its pages. A Chromium log file of the client's naming, which a
 * page's console.error appends to, is refused before anything starts; the browser's environment, which a
 * page reads at file:///proc/self/environ, holds none of gridgate's secrets, nor does chromedriver's.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCHED_BY_ENV } from '../../../../functions/adapters/process/browser-environment';
import { sessionClaims } from '../../../e2e/session-ended';
import { startTestGrid, type TestGrid } from '../../../support/grid-fixture';
import { launchedProcesses } from '../../../support/launched-processes';

const TEST_MS = 120_000;
// In gridgate's own environment while the grid runs, as an operator sets them; never in a browser's.
const SECRETS = {
  GRIDGATE_SECRET: `signing-key-${randomBytes(16).toString('hex')}`,
  AWS_SECRET_ACCESS_KEY: `aws-secret-${randomBytes(16).toString('hex')}`,
};

let grid: TestGrid;
let folder: string;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  for (const [name, value] of Object.entries(SECRETS)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  folder = mkdtempSync(join(tmpdir(), 'gridgate-reach-'));
  grid = await startTestGrid();
});

afterAll(async () => {
  await grid?.close();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(folder, { recursive: true, force: true });
});

interface Answer {
  status: number;
  value: {
    sessionId?: string;
    error?: string;
    message?: string;
    stacktrace?: string;
    [key: string]: unknown;
  };
}

async function webdriver(method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${grid.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, value: ((await response.json()) as { value: Answer['value'] }).value };
}

const newSession = (chromeOptions: Record<string, unknown> = {}) =>
  webdriver('POST', '/session', {
    capabilities: { alwaysMatch: { browserName: 'chrome', 'goog:chromeOptions': chromeOptions } },
  });

describe('what a local session reaches of the grid’s machine', { timeout: TEST_MS }, () => {
  it('refuses a Chromium log file of the client’s naming, which a page’s console.error would append to', async () => {
    // Where Python would run it at its next start, were the folder on its path.
    const packages = join(folder, 'site-packages');
    mkdirSync(packages);
    const logFile = join(packages, 'gridgate-reach.pth');
    const line = `import gridgate_reach_${randomBytes(6).toString('hex')}`;
    const created = await newSession({ args: ['--enable-logging', `--log-file=${logFile}`] });
    if (created.status === 200 && created.value.sessionId) {
      // The hole: the page's line lands in the file verbatim, on a line of its own.
      const session = `/session/${created.value.sessionId}`;
      await webdriver('POST', `${session}/execute/sync`, {
        script: 'console.error(arguments[0]);',
        args: [`\n${line}\n`],
      });
      await webdriver('DELETE', session);
    }
    expect(existsSync(logFile) ? readFileSync(logFile, 'utf8') : '').not.toContain(line);
    expect(created.status).toBe(400);
    expect(created.value.error).toBe('invalid argument');
    expect(created.value.message).toMatch(
      /^Chromium switch --log-file is not allowed on local pools: .*; allowed: see docs\/sessions\.md$/,
    );
    expect(typeof created.value.stacktrace).toBe('string');
    expect(grid.launcher.running()).toEqual([]);
  });

  it('gives the browser and chromedriver none of gridgate’s environment: a page at /proc/self/environ finds no secret', async () => {
    const created = await newSession();
    expect(created.status).toBe(200);
    const sessionId = created.value.sessionId as string;
    const session = `/session/${sessionId}`;
    try {
      // What a page reads there holds no secret. Chromium 156 reads every /proc file as empty (stat gives
      // size 0) through file://, XMLHttpRequest, fetch and a file input alike, so this alone cannot see a
      // leak here; the kernel's copy, below, can.
      expect((await webdriver('POST', `${session}/url`, { url: 'file:///proc/self/environ' })).status).toBe(
        200,
      );
      const source = (await webdriver('GET', `${session}/source`)).value as unknown as string;
      for (const secret of Object.values(SECRETS)) expect(source).not.toContain(secret);

      // chromedriver's and the browser's environment as the kernel holds it (what a program either runs, or
      // a browser whose /proc files read whole, would find), read from outside: the mark and HOME in the
      // browser's own folder are there, gridgate's secrets are not.
      const { handle } = sessionClaims(grid, sessionId);
      const chromiums = launchedProcesses('chromium').map((chromium) => chromium.pid);
      expect(chromiums.length).toBeGreaterThan(0);
      for (const pid of [Number(handle), ...chromiums]) {
        const environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
        for (const secret of Object.values(SECRETS)) expect(environ, `process ${pid}`).not.toContain(secret);
        expect(environ, `process ${pid}`).not.toMatch(/(^|\0)(GRIDGATE_SECRET|AWS_[A-Z_]+)=/);
        expect(environ, `process ${pid}`).toContain(`${LAUNCHED_BY_ENV}=${process.pid}`);
        expect(environ, `process ${pid}`).toMatch(/(^|\0)HOME=[^\0]*gridgate-tmp-/);
      }
    } finally {
      await webdriver('DELETE', session);
    }
  });
});
