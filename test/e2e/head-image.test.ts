/**
 * The router head's container image, run as its Dockerfile says, without Docker: the build stage's output
 * (dist/server, the production build) laid out as the image holds it in a directory of its own with no
 * node_modules beside it, and the image's CMD run there with the image's ENV and nothing of this machine's
 * environment, as a head behind a load balancer runs: the store shared through DynamoDB (dynalite), the
 * signing key given, real Chromium pools, and a proxy in front whose URL is the config's publicUrl.
 * WebdriverIO gets BiDi events and Playwright drives the browser over se:cdp, both through the proxy.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remote } from 'webdriverio';
import { DynamoSessionStore } from '../../functions/adapters/aws/dynamo-session-store';
import { ensureServerBuild } from '../../scripts/server-build.mjs';
import { finalStage } from '../support/dockerfile-stage';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../support/dynalite';
import { followServer } from '../support/node-server-process';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';

const ROOT = join(import.meta.dirname, '../..');
const TEST_MS = 150_000;
/** The build stage's WORKDIR: the repository's root as the Dockerfile's build sees it. */
const BUILD_ROOT = '/app';

let image: string;
let head: ChildProcess;
let headUrl: string;
let balancer: Server;
let balancerUrl: string;
let dynamo: DynaliteServer;
let table: SessionTableUnderTest;
let site: TestPageServer;

/** A TCP proxy on loopback in front of the head, as the load balancer is: clients know only its address. */
function startBalancer(target: () => number): Promise<Server> {
  const server = createServer((client) => {
    const upstream = tcpConnect(target(), '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** The image's files under `root`, as the Dockerfile's final stage copies them from the build stage. */
function layOutImage(root: string): ReturnType<typeof finalStage> {
  const stage = finalStage(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  for (const { from, to } of stage.copiesFromBuild) {
    const destination = join(root, to.startsWith('/') ? to : join(stage.workdir, to));
    cpSync(join(ROOT, relative(BUILD_ROOT, from)), destination, { recursive: true });
  }
  return stage;
}

beforeAll(async () => {
  await ensureServerBuild();
  [dynamo, site] = await Promise.all([startDynalite(), startTestPageServer()]);
  table = await dynamo.createSessionTable();
  image = mkdtempSync(join(tmpdir(), 'gridgate-head-image-'));
  const stage = layOutImage(image);
  let headPort = 0;
  balancer = await startBalancer(() => headPort);
  const address = balancer.address() as { port: number };
  balancerUrl = `http://127.0.0.1:${address.port}`;

  // The config the image reads (its GRIDGATE_CONFIG, under the image's root here).
  const configPath = join(image, stage.env.GRIDGATE_CONFIG as string);
  mkdirSync(dirname(configPath), { recursive: true });
  writeFileSync(
    configPath,
    JSON.stringify({
      port: 0,
      host: '127.0.0.1',
      publicUrl: balancerUrl,
      store: { kind: 'dynamodb', table: table.table },
      browsers: { chrome: { defaultVersion: 'stable', versions: { stable: { pools: ['chromium'] } } } },
      pools: { chromium: { kind: 'local', maxSessions: 2 } },
    }),
  );
  head = spawn(stage.command[0] as string, stage.command.slice(1), {
    cwd: join(image, stage.workdir),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: image,
      ...stage.env,
      GRIDGATE_CONFIG: configPath,
      GRIDGATE_SECRET: randomBytes(32).toString('hex'),
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    },
  });
  headUrl = await followServer(head).url;
  headPort = Number(new URL(headUrl).port);
}, 120_000);

afterAll(async () => {
  if (head && head.exitCode === null) {
    const exited = new Promise((resolve) => head.once('exit', resolve));
    head.kill('SIGTERM');
    await exited;
  }
  balancer?.close();
  // The table first: its deletion goes to dynalite.
  await table?.close();
  await Promise.all([dynamo?.close(), site?.close()]);
  if (image) rmSync(image, { recursive: true, force: true });
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
        await expect.poll(() => page.textContent('#result')).toBe('Hello, Ada');
      } finally {
        await browser.close();
      }
    } finally {
      delete process.env.SELENIUM_REMOTE_URL;
    }
    // Playwright's close sent the DELETE: no slot is held in the shared store.
    const store = new DynamoSessionStore({ client: table.client, table: table.table });
    await expect.poll(() => store.inUse(), { timeout: 30_000 }).toEqual({});
  });
});
