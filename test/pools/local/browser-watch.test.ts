import { describe, expect, it } from 'vitest';
import { BrowserWatch, type ProcessTable } from '../../../functions/pools/local/browser-watch';

/** A process table by hand: pid → parent; `zombies` have exited but are not reaped yet. */
function table(
  processes: Map<number, number>,
  zombies = new Set<number>(),
  failing = { now: false },
): ProcessTable {
  return {
    async parents() {
      if (failing.now) throw new Error('EACCES');
      return new Map(processes);
    },
    async parentWhileRunning(pid) {
      if (failing.now) throw new Error('EACCES');
      return zombies.has(pid) ? undefined : processes.get(pid);
    },
  };
}

describe('BrowserWatch', () => {
  it('reports a session once the browser its chromedriver started is gone, not before it started', async () => {
    const processes = new Map([[10, 1]]);
    const gone: string[] = [];
    const watch = new BrowserWatch((handle) => gone.push(handle), table(processes), 60_000);
    watch.watch('10', 10);
    await watch.tick();
    processes.set(11, 10); // chromedriver starts Chromium at the new-session request
    await watch.tick();
    await watch.tick();
    expect(gone).toEqual([]);
    processes.delete(11);
    await watch.tick();
    await watch.tick();
    expect(gone).toEqual(['10']);
    watch.close();
  });

  it('takes an unreaped browser (a zombie) as gone, and a pid reused by another parent too', async () => {
    const processes = new Map([
      [10, 1],
      [11, 10],
      [20, 1],
      [21, 20],
    ]);
    const zombies = new Set<number>();
    const gone: string[] = [];
    const watch = new BrowserWatch((handle) => gone.push(handle), table(processes, zombies), 60_000);
    watch.watch('10', 10);
    watch.watch('20', 20);
    await watch.tick();
    zombies.add(11);
    processes.set(21, 1);
    await watch.tick();
    await watch.tick();
    expect(gone.sort()).toEqual(['10', '20']);
    watch.close();
  });

  it('looks again after the process table could not be read, and forgets a session that was stopped', async () => {
    const processes = new Map([
      [10, 1],
      [11, 10],
      [20, 1],
      [21, 20],
    ]);
    const failing = { now: false };
    const gone: string[] = [];
    const watch = new BrowserWatch(
      (handle) => gone.push(handle),
      table(processes, new Set(), failing),
      60_000,
    );
    watch.watch('10', 10);
    watch.watch('20', 20);
    await watch.tick();
    failing.now = true;
    processes.delete(11);
    processes.delete(21);
    await watch.tick();
    expect(gone).toEqual([]);
    failing.now = false;
    watch.unwatch('20');
    await watch.tick();
    await watch.tick();
    expect(gone).toEqual(['10']);
    watch.close();
  });
});
