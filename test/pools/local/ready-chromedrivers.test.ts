/**
 * The one ready chromedriver per local pool: taken by a session, and replaced only once that session's
 * browser answered or failed to start, so that no replacement starts beside the session's Chromium launch.
 * The processes are a hand-written fake: what is decided here is when to start one, not how.
 */
import { describe, expect, it } from 'vitest';
import { type PoolConfig, parseConfig } from '../../../functions/core/config';
import { type DriverProcesses, ReadyChromedrivers } from '../../../functions/pools/local/ready-chromedrivers';

type LocalPool = Extract<PoolConfig, { kind: 'local' }>;

const POOL = parseConfig({}, { builtInBrowserVersion: '1' }).pools.local as LocalPool;

/** Starts "chromedrivers" named 1, 2, … at once; counts starts and stops. */
function fakeProcesses() {
  const started: string[] = [];
  const stopped: string[] = [];
  const processes: DriverProcesses = {
    spawn: async () => {
      const handle = String(started.length + 1);
      started.push(handle);
      return { handle, address: `127.0.0.1:${9000 + started.length}`, userDataDir: '' };
    },
    alive: (handle) => !stopped.includes(handle),
    stop: async (handle) => {
      stopped.push(handle);
    },
  };
  return { processes, started, stopped };
}

/** Lets the fake's promise chains run (spawn's then/finally). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('ReadyChromedrivers', () => {
  it('starts no replacement while the session that took the ready one is still launching its browser', async () => {
    const { processes, started } = fakeProcesses();
    const ready = new ReadyChromedrivers(processes);
    ready.keep([POOL]);
    await settled();
    const taken = await ready.take(POOL);
    expect(taken?.handle).toBe('1');

    // The launcher's once-a-second keep() comes while the session's Chromium starts.
    ready.keep([POOL]);
    await settled();
    expect(started).toEqual(['1']);

    ready.launched('1');
    await settled();
    expect(started).toEqual(['1', '2']);
    expect((await ready.take(POOL))?.handle).toBe('2');
    await ready.close();
  });

  it('replaces a ready chromedriver whose session failed to start once told so, as after a success', async () => {
    const { processes, started } = fakeProcesses();
    const ready = new ReadyChromedrivers(processes);
    ready.keep([POOL]);
    await settled();
    await ready.take(POOL);
    ready.launched('1');
    ready.launched('1');
    await settled();
    expect(started).toEqual(['1', '2']);
    await ready.close();
  });

  it('starts nothing for a handle it never handed out', async () => {
    const { processes, started } = fakeProcesses();
    const ready = new ReadyChromedrivers(processes);
    ready.keep([POOL]);
    await settled();
    ready.launched('someone-else');
    ready.keep([POOL]);
    await settled();
    expect(started).toEqual(['1']);
    await ready.close();
  });

  it('hands out a ready chromedriver only once, and none after close', async () => {
    const { processes, stopped } = fakeProcesses();
    const ready = new ReadyChromedrivers(processes);
    ready.keep([POOL]);
    await settled();
    expect((await ready.take(POOL))?.handle).toBe('1');
    expect(await ready.take(POOL)).toBeUndefined();
    ready.launched('1');
    await settled();
    await ready.close();
    expect(stopped).toEqual(['2']);
    expect(await ready.take(POOL)).toBeUndefined();
  });
});
