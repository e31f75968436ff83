/**
 * End to end on a local pool, real Chromium: the grid captures a session's console and network traffic over
 * its own DevTools connection when the session asks (gridgate:options, BrowserStack's bstack:options). A page
 * that fetches two things and writes a console.error yields a HAR that the HAR 1.2 schema (har-validator)
 * accepts, holding both requests with their status and timings, and a console log holding the error; both
 * are served at /har/{id}.har and /console/{id}.log and on the status page to their owner, and are the same
 * 404 as a session that does not exist to another user. A session that asks for nothing captures nothing.
 * docs/video-and-logs.md's console and network example runs as written (Python selenium, then curl).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as harValidator from 'har-validator';
import { Builder, until } from 'selenium-webdriver';
import { Options } from 'selenium-webdriver/chrome';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordingList } from '../../functions/http/ui/ui-views';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { runPython } from '../support/python-selenium';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';
import { sessionClaims } from './session-ended';

const TEST_MS = 150_000;
const WAIT_MS = 30_000;
const ALICE = { authorization: `Basic ${Buffer.from('alice:alice-pw').toString('base64')}` };

const scratch = mkdtempSync(join(tmpdir(), 'gridgate-capture-e2e-'));
let grid: TestGrid;
let site: TestPageServer;

beforeAll(async () => {
  const usersFile = join(scratch, 'users.htpasswd');
  const sha = (password: string) => `{SHA}${createHash('sha1').update(password).digest('base64')}`;
  writeFileSync(usersFile, `alice:${sha('alice-pw')}\n`);
  [grid, site] = await Promise.all([
    // Guests are let in (the clients below sign in as nobody); alice is the other user.
    startTestGrid({ usersFile, recording: { directory: join(scratch, 'kept') } }),
    startTestPageServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([grid?.close(), site?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

/** A session that opens the fetching page, waits for its fetches, and ends by its DELETE; its ID. */
async function fetchingSession(capabilities: Record<string, unknown>): Promise<string> {
  const options = new Options();
  for (const [name, value] of Object.entries(capabilities)) options.set(name, value);
  const driver = await new Builder()
    .usingServer(grid.url)
    .forBrowser('chrome')
    .setChromeOptions(options)
    .build();
  try {
    await driver.get(`${site.url}/console-and-fetches`);
    await driver.wait(until.titleIs('fetched'), WAIT_MS);
    return (await driver.getSession()).getId();
  } finally {
    await driver.quit();
  }
}

const fetched = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${grid.url}${path}`, { headers });

interface HarEntry {
  request: { method: string; url: string };
  response: { status: number };
  time: number;
  timings: { send: number; wait: number; receive: number };
}

describe('console and network capture', { timeout: TEST_MS }, () => {
  it('serves a valid HAR and the console log of a session that asked, to its owner only', async () => {
    const id = await fetchingSession({ 'gridgate:options': { console: true, network: true } });

    // The DELETE is answered once the browser stopped and its captures were kept.
    const har = await fetched(`/har/${id}.har`);
    expect(har.status).toBe(200);
    expect(har.headers.get('content-type')).toMatch(/^application\/json/);
    const archive = (await har.json()) as { log: { version: string; entries: HarEntry[] } };
    await expect(harValidator.har(archive)).resolves.toBeDefined();
    expect(archive.log.version).toBe('1.2');
    const entry = (path: string) =>
      archive.log.entries.find((one) => one.request.url === `${site.url}${path}`);
    for (const [path, status] of [
      ['/console-and-fetches', 200],
      ['/second', 200],
      ['/missing.json', 404],
    ] as const) {
      const found = entry(path);
      expect(found, `${path} in the HAR`).toBeDefined();
      expect(found?.response.status).toBe(status);
      expect(found?.time).toBeGreaterThan(0);
      expect(found?.timings.wait).toBeGreaterThanOrEqual(0);
    }

    const consoleLog = await fetched(`/console/${id}.log`);
    expect(consoleLog.status).toBe(200);
    expect(consoleLog.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await consoleLog.text();
    expect(text).toMatch(
      /^\S+Z error console\.error http:\/\/127\.0\.0\.1:\d+\/console-and-fetches:\d+:\d+ checkout total was 41$/m,
    );
    // The browser's own entry for the request that was not found.
    expect(text).toMatch(/ error network .*\/missing\.json Failed to load resource/);

    // The status page lists both beside the session, from the same files.
    const list = (await (await fetched('/ui/api/recordings')).json()) as RecordingList;
    const listed = list.recordings.find((recording) => recording.key === sessionClaims(grid, id).key);
    expect(listed?.consoleUrl).toBeDefined();
    expect(listed?.harUrl).toBeDefined();
    expect((await fetched(`/${listed?.harUrl}`)).status).toBe(200);
    expect(await (await fetched(`/${listed?.consoleUrl}`)).text()).toBe(text);

    // Another user: the same 404 as a session that does not exist, on both paths and on the page's.
    for (const path of [
      `/har/${id}.har`,
      `/console/${id}.log`,
      `/${listed?.harUrl}`,
      `/${listed?.consoleUrl}`,
    ]) {
      const answer = await fetched(path, ALICE);
      expect(answer.status, path).toBe(404);
      expect(((await answer.json()) as { value: { error: string } }).value.error).toBe('invalid session id');
    }
  });

  it('captures only what the session asked for, in BrowserStack’s spelling too', async () => {
    const consoleOnly = await fetchingSession({ 'bstack:options': { consoleLogs: 'errors' } });
    const nothing = await fetchingSession({});
    expect(await (await fetched(`/console/${consoleOnly}.log`)).text()).toContain('checkout total was 41');
    expect((await fetched(`/har/${consoleOnly}.har`)).status).toBe(404);
    expect((await fetched(`/console/${nothing}.log`)).status).toBe(404);
    expect((await fetched(`/har/${nothing}.har`)).status).toBe(404);
  });

  it('runs docs/video-and-logs.md’s example: Python asks, curl fetches the HAR and the console log', async () => {
    const page = readFileSync(new URL('../../docs/video-and-logs.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('## Console and network logs'));
    const block = (language: string) =>
      new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section)?.[1] as string;
    const local = (text: string) =>
      text.replaceAll('http://localhost:4444', grid.url).replaceAll('https://example.com/', `${site.url}/`);
    const script = join(scratch, 'capture-example.py');
    writeFileSync(script, local(block('python')));
    const run = await runPython(script, []);
    expect(run.code, run.stderr).toBe(0);
    const sessionId = run.stdout.trim().split('\n')[0] as string;
    await promisify(execFile)('sh', ['-e', '-c', local(block('sh'))], {
      cwd: scratch,
      env: { ...process.env, SESSION_ID: sessionId, NO_PROXY: '*' },
    });
    const archive = JSON.parse(readFileSync(join(scratch, 'checkout.har'), 'utf8')) as {
      log: { entries: HarEntry[] };
    };
    await expect(harValidator.har(archive)).resolves.toBeDefined();
    expect(archive.log.entries.find((one) => one.request.url === `${site.url}/`)?.response.status).toBe(200);
    expect(readFileSync(join(scratch, 'checkout.console.log'), 'utf8')).toMatch(
      / error console\.error .*checkout total was 41$/m,
    );
  });
});
