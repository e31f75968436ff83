/**
 * End to end: who a WebSocket session belongs to, as for WebDriver. A grid with a users file and no guest:
 * Basic credentials in the URL (Puppeteer, Playwright), `?token=user:password` (Browserless's shape) and a
 * header each make the session the user's; none, or a wrong password, is 401 on the upgrade before anything
 * starts; another site's page is refused (403) before any password is checked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { until } from '../support/until';
import { upgradeOutcome } from '../support/websocket-upgrade';

const dir = mkdtempSync(join(tmpdir(), 'gg-socket-users-'));
let grid: TestGrid;
let ws: string;

beforeAll(async () => {
  const usersFile = join(dir, 'users.htpasswd');
  writeFileSync(usersFile, `alice:${bcrypt.hashSync('wonder land', 5).replace(/^\$2b\$/, '$2y$')}\n`);
  grid = await startTestGrid({ usersFile, guest: null });
  ws = grid.url.replace(/^http/, 'ws');
});
afterAll(async () => {
  await grid?.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await until(() => grid.launcher.running().length === 0, 'every session ended');
});

const users = async () => (await grid.deps.sessions.running()).map((session) => session.user);

async function refusal(path: string, headers: Record<string, string> = {}) {
  const outcome = await upgradeOutcome(new WebSocket(`${ws}${path}`, { headers }));
  if ('socket' in outcome) throw new Error(`${path} opened`);
  return { status: outcome.status, error: JSON.parse(outcome.body).value.error as string };
}

describe('users of sessions that are WebSockets', { timeout: 120_000 }, () => {
  it("makes Puppeteer's session with credentials in the URL the user's", async () => {
    const endpoint = ws.replace('ws://', 'ws://alice:wonder%20land@');
    const browser = await puppeteer.connect({ browserWSEndpoint: `${endpoint}/devtools/chrome` });
    try {
      expect(await users()).toEqual(['alice']);
    } finally {
      await browser.disconnect();
    }
  });

  it("makes Playwright's session with ?token=user:password the user's", async () => {
    const browser = await chromium.connect(`${ws}/chromium/playwright?token=alice:wonder%20land`);
    try {
      expect(await users()).toEqual(['alice']);
    } finally {
      await browser.close();
    }
  });

  it('refuses no credentials and a wrong password with 401 before anything starts', async () => {
    expect(await refusal('/playwright/chromium')).toEqual({ status: 401, error: 'invalid argument' });
    expect(await refusal('/devtools/chrome?token=alice:nope')).toEqual({
      status: 401,
      error: 'invalid argument',
    });
    const wrong = `Basic ${Buffer.from('alice:nope').toString('base64')}`;
    expect(await refusal('/devtools/chrome', { authorization: wrong })).toEqual({
      status: 401,
      error: 'invalid argument',
    });
    expect(grid.logger.lines.filter((line) => line.event === 'SESSION_REQUESTED')).toHaveLength(2);
  });

  it("refuses another site's page before any password is checked", async () => {
    const answer = await refusal('/devtools/chrome?token=alice:wonder%20land', {
      origin: 'https://evil.example',
    });
    expect(answer.status).toBe(403);
    expect(await users()).toEqual([]);
  });
});
