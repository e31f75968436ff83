/**
 * End to end through the EKS path: the real app with an EksLauncher whose pod API talks to an in-process
 * Kubernetes API (test/support/fake-kubernetes-api.ts) that runs each pod's browser as a real chromedriver
 * and Chromium on a loopback IP of its own; the npm selenium-webdriver client drives it.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Builder, By } from 'selenium-webdriver';
import { Options as ChromeOptions } from 'selenium-webdriver/chrome';
import type { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EksLauncher } from '../../functions/adapters/aws/eks-launcher';
import { EksPodApi } from '../../functions/adapters/aws/eks-pod-api';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { parseConfig } from '../../functions/core/config';
import { endAllSessions } from '../../functions/core/end-session';
import type { GridDeps } from '../../functions/core/grid-deps';
import { systemClock } from '../../functions/core/ports';
import { SessionTokens } from '../../functions/core/session-token';
import { SlotQueue } from '../../functions/core/slot-queue';
import { createApp } from '../../functions/http/create-app';
import { createUpstreamAgent } from '../../functions/http/upstream-client';
import { FakeKubernetesApi } from '../support/fake-kubernetes-api';
import { CollectingLogger } from '../support/fakes';
import { LoopbackChromedrivers } from '../support/loopback-chromedrivers';
import { freePort, processGroupAlive } from '../support/processes';
import { startTestPageServer, type TestPageServer } from '../support/test-page-server';

const TEST_MS = 60_000;
const TOKEN = 'k8s-aws-v1.e2e';

let kube: FakeKubernetesApi;
let containers: LoopbackChromedrivers;
let site: TestPageServer;
let server: Server;
let agent: Agent;
let deps: GridDeps;
let gridUrl: string;
let port: number;
const logger = new CollectingLogger();

beforeAll(async () => {
  port = await freePort();
  containers = new LoopbackChromedrivers(port);
  // 127.0.1.x: apart from the fake Fargate tasks' 127.0.0.x, should both suites run at once.
  [kube, site] = await Promise.all([
    FakeKubernetesApi.start({ token: TOKEN, podIp: (n) => `127.0.1.${n + 1}`, containers }),
    startTestPageServer(),
  ]);
  const api = new EksPodApi({ endpoint: kube.endpoint, token: async () => TOKEN });
  const config = parseConfig(
    {
      port: 0,
      host: '127.0.0.1',
      browsers: { chrome: { defaultVersion: '156', versions: { '156': { pools: ['pods'] } } } },
      pools: {
        pods: {
          kind: 'eks',
          cluster: 'browsers',
          endpoint: 'https://kubernetes.invalid',
          networks: ['127.0.0.0/8'],
          port,
        },
      },
    },
    { localBrowserVersion: 'unused' },
  );
  deps = {
    config,
    launchers: { eks: new EksLauncher({ podApi: () => api, logger }) },
    sessions: new MemorySessionStore(),
    queue: new SlotQueue(),
    tokens: new SessionTokens(randomBytes(32)),
    logger,
    clock: systemClock,
    version: '0.0.0-test',
  };
  agent = createUpstreamAgent();
  const app = createApp(deps, { agent });
  server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () =>
      resolve(started as Server),
    );
  });
  gridUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  // Every process the fake started dies here, whatever a test left behind.
  if (deps) await endAllSessions(deps, 'server shutdown');
  await kube?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await Promise.all([agent?.close(), site?.close()]);
  for (const container of containers?.containers.values() ?? [])
    expect(processGroupAlive(container.pid)).toBe(false);
});

describe('a session on a (fake) EKS pod', { timeout: TEST_MS }, () => {
  it('drives Chromium through the pod IP, carries the pod name in the session ID and deletes the pod on quit', async () => {
    const options = new ChromeOptions();
    options.addArguments('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage');
    const driver = await new Builder()
      .usingServer(gridUrl)
      .forBrowser('chrome')
      .setChromeOptions(options)
      .build();
    const sessionId = (await driver.getSession()).getId();
    const [name] = [...containers.containers.keys()];
    const container = containers.containers.get(name as string);
    try {
      await driver.get(`${site.url}/`);
      expect(await driver.findElement(By.id('heading')).getText()).toBe('Hello from 127.0.0.1');
      expect(await driver.getTitle()).toBe('gridgate test page');
      const check = deps.tokens.verify(sessionId, 'guest');
      expect(check.ok && check.claims.handle).toBe(name);
      expect(check.ok && check.claims.address).toBe(`127.0.1.2:${port}`);
    } finally {
      await driver.quit();
    }
    // DELETE is answered after the launcher deleted the pod, whose processes are gone by then.
    expect(kube.callsOf('DELETE')).toEqual([{ path: `/api/v1/namespaces/gridgate/pods/${name}` }]);
    expect(kube.pods.size).toBe(0);
    expect(processGroupAlive(container?.pid)).toBe(false);
    expect(logger.events()).toEqual(['SESSION_REQUESTED', 'SESSION_CREATED', 'SESSION_DELETED']);
  });

  it('deletes the pod and answers with a W3C error naming the stage when its image never pulls', async () => {
    kube.behaviours.push('image pull');
    const response = await fetch(`${gridUrl}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }),
    });
    const body = (await response.json()) as { value: { error: string; message: string } };
    expect(response.status).toBe(500);
    expect(body.value.error).toBe('session not created');
    expect(body.value.message).toMatch(
      /^cannot create a chrome 156 session: pool pods: pull: pod gg-\S+: ErrImagePull: /,
    );
    await vi.waitFor(() => expect(kube.pods.size).toBe(0), { timeout: 5000, interval: 50 });
    expect(logger.fieldsOf('SESSION_FAILED').at(-1)?.reason).toMatch(/^pool pods: pull: /);
  });
});
