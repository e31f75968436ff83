/**
 * End to end: a session that is a WebSocket idles out as a WebDriver session does. With a 3 s idle timeout,
 * a CDP client that keeps talking keeps its session past it; one that goes quiet is ended by the expiry
 * sweep: SESSION_TIMED_OUT, its browser stopped, its socket closed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestGrid, type TestGrid } from '../support/grid-fixture';
import { until } from '../support/until';

let grid: TestGrid;

beforeAll(async () => {
  grid = await startTestGrid({ timeouts: { idle: '3s' } });
});
afterAll(async () => {
  await grid?.close();
});

describe('idle sessions that are WebSockets', { timeout: 120_000 }, () => {
  it('keeps a talking CDP client past the idle timeout, then ends it once quiet, closing its socket', async () => {
    const socket = new WebSocket(`${grid.url.replace(/^http/, 'ws')}/devtools/chrome`);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => socket.once('close', resolve));
    const [session] = await grid.deps.sessions.running();
    const timedOut = () =>
      grid.logger.lines.some(
        (line) => line.event === 'SESSION_TIMED_OUT' && line.fields.session === session?.key,
      );

    // Talking: a command a second for twice the idle timeout.
    let id = 0;
    const talked = Date.now();
    while (Date.now() - talked < 6000) {
      socket.send(JSON.stringify({ id: ++id, method: 'Browser.getVersion' }));
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(timedOut()).toBe(false);

    await until(timedOut, 'the quiet session timed out');
    await closed;
    await until(() => grid.launcher.running().length === 0, 'its browser stopped');
  });
});
