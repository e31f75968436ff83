/**
 * The status page's live VNC view with the real parts, as on AWS with the service front door: an ecs pool
 * whose task (in the fake ECS API) is laid out as docker-selenium's node images run it — Xvfb, Chromium
 * headful on it through chromedriver, x11vnc behind a password, websockify serving Debian's noVNC on the
 * pool's vncPort — and a head run as that front door runs it (the image's CMD, the production build)
 * behind a load balancer. A client's session shows one big solid colour; a person's Chromium opens that
 * session's page through the balancer; noVNC, served by gridgate from its own origin, connects through
 * gridgate's WebSocket with the password the page hands it (not docker-selenium's default), and its canvas
 * (same origin, so readable) holds the remote screen in that colour.
 */
import { Builder, By, until, type WebDriver } from 'selenium-webdriver';
import { Options as ChromeOptions, ServiceBuilder } from 'selenium-webdriver/chrome';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCHED_BY_ENV } from '../../functions/pools/local/chromedriver-launcher';
import { chromeSession, headlessChromeOptions } from '../support/chrome-sessions';
import { FakeEcsApi } from '../support/fake-ecs-api';
import { type HeadImage, startHeadImage } from '../support/head-image-process';
import { SCREEN } from '../support/loopback-vnc-browsers';
import { freePortBelowEphemeral, processGroupAlive } from '../support/processes';
import { until as waitUntil } from '../support/until';

const TEST_MS = 120_000;
const WAIT_MS = 30_000;
// VNC passwords are 8 characters at most (RFB's DES key); not docker-selenium's default "secret".
const PASSWORD = 'gg-vnc-8';
const COLOUR = [214, 31, 163] as const;
const COLOUR_PAGE = `data:text/html,<title>colour</title><body style="margin:0;background:rgb(${COLOUR.join(',')})">`;

let fake: FakeEcsApi;
let head: HeadImage;
let viewer: WebDriver;

beforeAll(async () => {
  fake = await FakeEcsApi.start({
    containerPort: await freePortBelowEphemeral(),
    vnc: { port: await freePortBelowEphemeral(), password: PASSWORD },
  });
  head = await startHeadImage(
    (publicUrl) => ({
      port: 0,
      host: '127.0.0.1',
      publicUrl,
      browsers: { chrome: { defaultVersion: 'stable', versions: { stable: { pools: ['fargate'] } } } },
      pools: { fargate: { ...fake.poolSettings(), maxSessions: 1 } },
    }),
    {
      AWS_ENDPOINT_URL_ECS: fake.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    },
  );
  // The person's own browser, driven directly through chromedriver: not a session of the grid.
  viewer = await new Builder()
    .forBrowser('chrome')
    .setChromeOptions(headlessChromeOptions())
    .setChromeService(
      // Marked as gridgate's browsers are, so that the suite's leftover check counts it too.
      new ServiceBuilder('/usr/bin/chromedriver').setEnvironment({
        ...(process.env as Record<string, string>),
        [LAUNCHED_BY_ENV]: String(process.pid),
      }),
    )
    .build();
}, 120_000);

afterAll(async () => {
  await viewer?.quit();
  await head?.close();
  await fake?.close();
  for (const task of fake?.tasks.values() ?? []) expect(processGroupAlive(task.pid)).toBe(false);
});

/** Chromium as a docker-selenium node runs it: headful on the display, its window the whole screen. */
function onTheDisplay(): ChromeOptions {
  const options = new ChromeOptions();
  options.addArguments(
    '--no-sandbox',
    '--disable-dev-shm-usage',
    '--window-position=0,0',
    `--window-size=${SCREEN.width},${SCREEN.height}`,
  );
  return options;
}

/**
 * Run in noVNC's page with the colour as its argument: the size of its canvas (the remote screen's) and
 * the share of it in that colour. Solid areas come as exact fills; a few levels of slack for the
 * encodings that are not exact.
 */
const CANVAS_COLOUR_SHARE = `
  const colour = arguments[0];
  const canvas = document.querySelector('#noVNC_container canvas');
  if (!canvas || canvas.width === 0) return { width: 0, height: 0, share: 0 };
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let near = 0;
  for (let i = 0; i < data.length; i += 4) {
    if ([0, 1, 2].every((c) => Math.abs(data[i + c] - colour[c]) <= 8)) near++;
  }
  return { width: canvas.width, height: canvas.height, share: near / (data.length / 4) };`;

interface CanvasColour {
  width: number;
  height: number;
  share: number;
}

describe('the status page’s VNC view with noVNC, websockify and x11vnc', { timeout: TEST_MS }, () => {
  it('connects through gridgate behind the balancer and draws the browser’s screen', async () => {
    const client = await chromeSession(head.balancerUrl, onTheDisplay());
    try {
      await client.get(COLOUR_PAGE);
      await viewer.get(`${head.balancerUrl}/ui`);
      const link = await viewer.wait(until.elementLocated(By.css('#sessions tr[data-session] a')), WAIT_MS);
      await link.click();
      const frame = await viewer.wait(until.elementLocated(By.css('#vnc:not([hidden])')), WAIT_MS);
      expect(await viewer.findElement(By.id('live-status')).getText()).toBe('Live VNC view.');
      await viewer.switchTo().frame(frame);
      // noVNC marks its page connected once the RFB handshake (the password included) has passed.
      await viewer.wait(
        () => viewer.executeScript("return document.documentElement.classList.contains('noVNC_connected')"),
        WAIT_MS,
        'noVNC did not connect',
      );
      const status = await viewer.executeScript("return document.getElementById('noVNC_status').textContent");
      expect(status).toMatch(/^Connected/);
      const screen = await waitUntil(async () => {
        const seen = await viewer.executeScript<CanvasColour>(CANVAS_COLOUR_SHARE, COLOUR);
        return seen.share > 0.5 && seen;
      }, 'noVNC’s canvas shows the page’s colour');
      expect(screen).toMatchObject({ width: SCREEN.width, height: SCREEN.height });
    } finally {
      await viewer.switchTo().defaultContent();
      await client.quit();
    }
  });
});
