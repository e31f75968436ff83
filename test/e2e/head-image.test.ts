/**
 * The router head's container image, run as its Dockerfile says without Docker (its files laid out alone,
 * its CMD with its ENV: support/head-image-process.ts), as a head behind a load balancer runs: the store
 * shared through DynamoDB (dynalite), the signing key given, real Chromium pools, and a proxy in front
 * whose URL is the config's publicUrl. WebdriverIO gets BiDi events and Playwright drives the browser over
 * se:cdp, both through the proxy; a CDP client's socket (Puppeteer's connect) and a Playwright client's
 * (`chromium.connect`, served by the Playwright server and the ws module the build lays out beside the entry)
 * are sessions of their own there.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remote } from 'webdriverio';
import { DynamoSessionStore } from '../../functions/adapters/aws/dynamo-session-store';
import { majorMinor } from '../../functions/core/socket-session-request';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../support/dynalite';
import { type HeadImage, startHeadImage } from '../support/head-image-process';
import { playwrightServers, playwrightVisit, puppeteerVisit } from '../support/socket-session-clients';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';
import { eventually } from '../support/until';

const TEST_MS = 150_000;

let head: HeadImage;
let headUrl: string;
let balancerUrl: string;
let dynamo: DynaliteServer;
let table: SessionTableUnderTest;
let site: TestPageServer;
const playwrightCache = mkdtempSync(join(tmpdir(), 'gg-head-playwright-'));
const PLAYWRIGHT_VERSION = (
  createRequire(import.meta.url)('playwright-core/package.json') as { version: string }
).version;

beforeAll(async () => {
  // The image holds no playwright-core: a head installs its clients' versions from the npm registry on first
  // use. Tests reach no registry: the cache is laid out as that install leaves it, with the repository's.
  cpSync(
    dirname(createRequire(import.meta.url).resolve('playwright-core/package.json')),
    join(playwrightCache, majorMinor(PLAYWRIGHT_VERSION), 'node_modules', 'playwright-core'),
    { recursive: true },
  );
  [dynamo, site] = await Promise.all([startDynalite(), startTestPageServer()]);
  table = await dynamo.createSessionTable();
  head = await startHeadImage(
    (publicUrl) => ({
      port: 0,
      host: '127.0.0.1',
      publicUrl,
      store: { kind: 'dynamodb', table: table.table },
      browsers: { chrome: { defaultVersion: 'stable', versions: { stable: { pools: ['chromium'] } } } },
      pools: { chromium: { kind: 'local', maxSessions: 2 } },
      playwrightCache,
    }),
    {
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    },
  );
  ({ headUrl, balancerUrl } = head);
}, 120_000);

afterAll(async () => {
  await head?.close();
  rmSync(playwrightCache, { recursive: true, force: true });
  // The table first: its deletion goes to dynalite.
  await table?.close();
  await Promise.all([dynamo?.close(), site?.close()]);
});

describe('the head image (Dockerfile CMD, production build) behind a load balancer', {
  timeout: TEST_MS,
}, () => {
  it('runs from the image layout alone, and answers through the balancer', async () => {
    expect(new URL(headUrl).port).not.toBe(new URL(balancerUrl).port);
    const status = (await (await fetch(`${balancerUrl}/status`)).json()) as { value: { ready: boolean } };
    expect(status.value.ready).toBe(true);
  });

  it('hands back webSocketUrl and se:cdp on the public URL, and WebdriverIO gets BiDi events through it', async () => {
    const { port } = new URL(balancerUrl);
    const browser = await remote({
      hostname: '127.0.0.1',
      port: Number(port),
      path: '/',
      logLevel: 'error',
      capabilities: { browserName: 'chrome', 'wdio:enforceWebDriverClassic': false },
    });
    try {
      expect(browser.isBidi).toBe(true);
      const publicBase = `ws://127.0.0.1:${port}/session/${browser.sessionId}`;
      expect(browser.capabilities.webSocketUrl).toBe(publicBase);
      expect((browser.capabilities as Record<string, unknown>)['se:cdp']).toBe(`${publicBase}/se/cdp`);
      await browser.url(`${site.url}/`);
      const logged = new Promise<string>((resolve) =>
        browser.on('log.entryAdded', (entry: { text: string | null }) => resolve(entry.text ?? '')),
      );
      await browser.sessionSubscribe({ events: ['log.entryAdded'] });
      await browser.execute(() => console.log('hello from behind the balancer'));
      expect(await logged).toBe('hello from behind the balancer');
    } finally {
      await browser.deleteSession();
    }
  });

  it('lets Playwright drive the browser through se:cdp, as it drives a Selenium grid', async () => {
    process.env.SELENIUM_REMOTE_URL = balancerUrl;
    try {
      const browser = await chromium.launch();
      try {
        const context = browser.contexts()[0] ?? (await browser.newContext());
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(`${site.url}/`);
        expect(await page.title()).toBe('gridgate test page');
        await page.fill('#name', 'Ada');
        await page.click('#greet');
        await eventually(async () => expect(await page.textContent('#result')).toBe('Hello, Ada'));
      } finally {
        await browser.close();
      }
    } finally {
      delete process.env.SELENIUM_REMOTE_URL;
    }
    // Playwright's close sent the DELETE: no slot is held in the shared store.
    const store = new DynamoSessionStore({ client: table.client, table: table.table });
    await eventually(async () => expect(await store.inUse()).toEqual({}), 30_000);
  });

  it("serves Puppeteer's connect as a session of its own through the balancer", async () => {
    const ws = balancerUrl.replace(/^http/, 'ws');
    const store = new DynamoSessionStore({ client: table.client, table: table.table });
    const title = await puppeteerVisit(
      `${ws}/devtools/chrome?name=head-puppeteer`,
      `${site.url}/`,
      async () => {
        // The session holds a slot of the shared store while its socket is open.
        expect(Object.values(await store.inUse()).reduce((sum, count) => sum + count, 0)).toBe(1);
      },
    );
    expect(title).toBe('gridgate test page');
    // The socket closed: the session ended and its slot is free.
    await eventually(async () => expect(await store.inUse()).toEqual({}), 30_000);
  });

  it("serves Playwright's connect as a session of its own through the balancer", async () => {
    const ws = balancerUrl.replace(/^http/, 'ws');
    const store = new DynamoSessionStore({ client: table.client, table: table.table });
    // The head's own servers (its workers'), none of another test file's.
    const servers = () => playwrightServers(head.child.pid as number);
    const { title, screenshot } = await playwrightVisit(
      `${ws}/playwright/chromium?name=head-playwright`,
      `${site.url}/`,
      async () => expect(servers().length).toBeGreaterThan(0),
    );
    expect(title).toBe('gridgate test page');
    expect(screenshot.subarray(1, 4).toString()).toBe('PNG');
    await eventually(async () => expect(await store.inUse()).toEqual({}), 30_000);
    await eventually(() => expect(servers()).toEqual([]), 30_000);
  });
});
