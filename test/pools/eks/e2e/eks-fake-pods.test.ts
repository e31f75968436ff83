/**
 * End to end through the EKS path: the real app with an EksLauncher whose pod API talks to an in-process
 * Kubernetes API (test/support/fake-kubernetes-api.ts) that runs each pod's browser as a real chromedriver
 * and Chromium on a loopback IP of its own, started with its container's env; the npm selenium-webdriver
 * client drives it.
 */
import { By } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../../../functions/adapters/memory/memory-session-store';
import { EksLauncher } from '../../../../functions/pools/eks/eks-launcher';
import { chromeSession, headlessChromeOptions } from '../../../support/chrome-sessions';
import { FakeKubernetesApi } from '../../../support/fake-kubernetes-api';
import { CollectingLogger } from '../../../support/fakes';
import { LoopbackChromedrivers } from '../../../support/loopback-chromedrivers';
import { configWithOnePool } from '../../../support/one-pool-config';
import { freePort, processGroupAlive } from '../../../support/processes';
import { type ServedApp, serveApp } from '../../../support/served-app';
import { startTestPageServer, type TestPageServer } from '../../../support/test-page-server';
import { eventually } from '../../../support/until';

const TEST_MS = 60_000;
const TOKEN = 'k8s-aws-v1.e2e';

let kube: FakeKubernetesApi;
let containers: LoopbackChromedrivers;
let site: TestPageServer;
let grid: ServedApp;
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
  const api = kube.podApi();
  grid = await serveApp({
    config: configWithOnePool(
      'pods',
      {
        kind: 'eks',
        cluster: 'browsers',
        endpoint: 'https://kubernetes.invalid',
        networks: ['127.0.0.0/8'],
        port,
      },
      { port: 0, host: '127.0.0.1' },
    ),
    runtimes: { eks: { launcher: new EksLauncher({ podApi: () => api, logger }) } },
    sessions: new MemorySessionStore(),
    logger,
  });
});

afterAll(async () => {
  // Every process the fake started dies here, whatever a test left behind.
  await grid?.close();
  await kube?.close();
  await site?.close();
  for (const container of containers?.containers.values() ?? [])
    expect(processGroupAlive(container.pid)).toBe(false);
});

describe('a session on a (fake) EKS pod', { timeout: TEST_MS }, () => {
  it('drives Chromium through the pod IP, carries the pod name in the session ID and deletes the pod on quit', async () => {
    const driver = await chromeSession(grid.url, headlessChromeOptions());
    const sessionId = (await driver.getSession()).getId();
    const [name] = [...containers.containers.keys()];
    const container = containers.containers.get(name as string);
    try {
      await driver.get(`${site.url}/`);
      expect(await driver.findElement(By.id('heading')).getText()).toBe('Hello from 127.0.0.1');
      expect(await driver.getTitle()).toBe('gridgate test page');
      const check = grid.deps.tokens.verify(sessionId, 'guest');
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

  it("starts the pod's browser with the session's se:timeZone and se:screenResolution", async () => {
    const options = headlessChromeOptions();
    options.set('se:timeZone', 'Australia/Eucla');
    options.set('se:screenResolution', '1024x768');
    const driver = await chromeSession(grid.url, options);
    try {
      // Eucla is UTC+8:45: no default of this machine or rounding could give it.
      expect(
        await driver.executeScript(
          `return [Intl.DateTimeFormat().resolvedOptions().timeZone, screen.width + 'x' + screen.height,
            outerWidth + 'x' + outerHeight].join(' ');`,
        ),
      ).toBe('Australia/Eucla 1024x768 1024x768');
    } finally {
      await driver.quit();
    }
  });

  it('deletes the pod and answers with a W3C error naming the stage when its image never pulls', async () => {
    kube.behaviours.push('image pull');
    const response = await fetch(`${grid.url}/session`, {
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
    await eventually(() => expect(kube.pods.size).toBe(0), 5000, 50);
    expect(logger.fieldsOf('SESSION_FAILED').at(-1)?.reason).toMatch(/^pool pods: pull: /);
  });
});
