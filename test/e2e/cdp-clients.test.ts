/**
 * End to end on a local pool: CDP clients that ask for "a remote browser" get a fresh one per connection, as
 * a WebDriver session (Puppeteer's `connect` with `browserWSEndpoint` and with `browserURL`, Playwright's
 * `connectOverCDP`), in Moon's and Browserless's URL shapes; the session is on the grid while the socket is
 * open and ends with it, leaving no browser behind.
 */
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { useGridAndSite } from '../support/grid-fixture';
import { until } from '../support/until';

const env = useGridAndSite();
const wsUrl = () => env.grid.url.replace(/^http/, 'ws');

afterEach(async () => {
  await until(() => env.grid.launcher.running().length === 0, 'every session ended');
});

/** The one session the grid has now, and the status page's entry for it. */
async function onlySession() {
  const sessions = await env.grid.deps.sessions.running();
  expect(sessions).toHaveLength(1);
  const session = sessions[0] as NonNullable<(typeof sessions)[0]>;
  const page = (await (await fetch(`${env.grid.url}/ui/api/sessions/${session.key}`)).json()) as {
    session: { user: string; pool: string; name?: string; protocol: string };
  };
  return { ...session, shown: page.session };
}

describe('CDP clients through the front door', { timeout: 120_000 }, () => {
  it("serves Puppeteer's connect with browserWSEndpoint at /devtools/chrome, one session per socket", async () => {
    const browser = await puppeteer.connect({
      browserWSEndpoint: `${wsUrl()}/devtools/chrome?name=puppeteer-ws`,
    });
    let session: Awaited<ReturnType<typeof onlySession>>;
    try {
      const page = await browser.newPage();
      await page.goto(env.site.url);
      expect(await page.title()).toBe('gridgate test page');
      session = await onlySession();
      expect(session.shown).toMatchObject({
        user: 'guest',
        pool: 'local',
        name: 'puppeteer-ws',
        protocol: 'cdp',
      });
    } finally {
      await browser.disconnect();
    }
    await until(() => env.grid.launcher.running().length === 0, 'the session ended with its socket');
    const ended = env.grid.logger.lines.filter((line) => line.fields.session === session.key);
    expect(ended.map((line) => line.event)).toContain('SESSION_DELETED');
  });

  it("serves Puppeteer's connect with browserURL through GET /json/version", async () => {
    const browser = await puppeteer.connect({ browserURL: `${env.grid.url}/devtools/chrome` });
    try {
      const page = await browser.newPage();
      await page.goto(env.site.url);
      expect(await page.$eval('#heading', (heading) => heading.textContent)).toBe('Hello from 127.0.0.1');
    } finally {
      await browser.disconnect();
    }
  });

  it("serves Playwright's connectOverCDP at Browserless's root with ?token=", async () => {
    const browser = await chromium.connectOverCDP(`${wsUrl()}/?token=guest:any`);
    try {
      const page = await browser.contexts()[0]?.newPage();
      await page?.goto(env.site.url);
      expect(await page?.title()).toBe('gridgate test page');
      await onlySession();
    } finally {
      await browser.close();
    }
  });

  it('ends the session when the client is killed mid-run, nothing left behind', async () => {
    const socket = new WebSocket(`${wsUrl()}/devtools/chromium`);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const session = await onlySession().finally(() => socket.terminate()); // no close frame: as a killed client's connection ends
    await until(async () => (await env.grid.deps.sessions.running()).length === 0, 'the session ended');
    await until(() => env.grid.launcher.running().length === 0, 'its browser stopped');
    const events = env.grid.logger.lines.filter((line) => line.fields.session === session.key);
    expect(events.map((line) => line.event)).toEqual([
      'SESSION_REQUESTED',
      'SESSION_CREATED',
      'SESSION_DELETED',
    ]);
  });

  it('refuses a browser the catalog does not serve with a W3C error on the upgrade', async () => {
    const answer = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const socket = new WebSocket(`${wsUrl()}/playwright/firefox`);
      socket.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
      socket.once('open', () => reject(new Error('opened')));
    });
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.body).value.error).toBe('session not created');
  });
});
