/**
 * End to end: a WebSocket that is a session counts against the quotas as a WebDriver session does. With four
 * sessions allowed, a fifth Playwright or CDP connection waits in the queue (its upgrade unanswered) until one
 * of the four closes, then gets its browser; a client that gives up while waiting leaves no session behind.
 */
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { until } from '../support/until';
import { opened } from '../support/websocket-upgrade';

let grid: TestGrid;
const wsUrl = () => grid.url.replace(/^http/, 'ws');

beforeAll(async () => {
  grid = await startTestGrid({ users: { guest: { maxSessions: 4 } } });
});
afterAll(async () => {
  await grid?.close();
});

function openSocket(path: string): { socket: WebSocket; opened: Promise<WebSocket> } {
  const socket = new WebSocket(`${wsUrl()}${path}`);
  // A refused upgrade says why in its body: the failure names it.
  return { socket, opened: opened(socket) };
}

describe('quotas for sessions that are WebSockets', { timeout: 240_000 }, () => {
  it('queues a fifth connection while four are allowed, and serves it once one closes', async () => {
    const four = ['/devtools/chrome', '/devtools/chromium', '/?name=third', '/chromium'].map(openSocket);
    await Promise.all(four.map(({ opened }) => opened));
    expect(await grid.deps.sessions.running()).toHaveLength(4);

    let fifthOpen = false;
    const fifth = chromium.connect(`${wsUrl()}/playwright/chromium?name=fifth`).then((browser) => {
      fifthOpen = true;
      return browser;
    });
    await until(() => grid.deps.queue.lengths().waiting === 1, 'the fifth connection waits in the queue');
    expect(fifthOpen).toBe(false);
    expect(await grid.deps.sessions.running()).toHaveLength(4);

    four[0]?.socket.close();
    const browser = await fifth;
    try {
      const page = await browser.newPage();
      await page.setContent('<title>fifth</title>');
      expect(await page.title()).toBe('fifth');
      const names = (await grid.deps.sessions.running()).map((session) => session.name);
      expect(names).toContain('fifth');
    } finally {
      await browser.close();
      for (const { socket } of four) socket.close();
    }
    await until(() => grid.launcher.running().length === 0, 'every session ended');
  });

  it('leaves nothing behind when a waiting client gives up', async () => {
    const four = ['/devtools/chrome', '/devtools/chrome', '/devtools/chrome', '/devtools/chrome'].map(
      openSocket,
    );
    await Promise.all(four.map(({ opened }) => opened));
    const waiting = openSocket('/devtools/chrome');
    waiting.opened.catch(() => {});
    await until(() => grid.deps.queue.lengths().waiting === 1, 'the fifth connection waits in the queue');
    waiting.socket.terminate();
    await until(() => grid.deps.queue.lengths().waiting === 0, 'the queue let it go');
    for (const { socket } of four) socket.close();
    await until(() => grid.launcher.running().length === 0, 'every session ended');
    const requested = grid.logger.lines.filter((line) => line.event === 'SESSION_REQUESTED').length;
    const created = grid.logger.lines.filter((line) => line.event === 'SESSION_CREATED').length;
    expect(requested - created).toBe(1);
  });
});
