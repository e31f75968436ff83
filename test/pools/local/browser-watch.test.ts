import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BrowserWatch, type ProcessTable } from '../../../functions/pools/local/browser-watch';
import { until } from '../../support/until';

/** A process table by hand: pid → parent; `zombies` have exited but are not reaped yet. */
function table(
  processes: Map<number, number>,
  zombies = new Set<number>(),
  failing = { now: false },
): ProcessTable {
  return {
    children(pid) {
      if (failing.now) throw new Error('EACCES');
      return [...processes].filter(([, parent]) => parent === pid).map(([child]) => child);
    },
    parentWhileRunning(pid) {
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
    watch.tick();
    processes.set(11, 10); // chromedriver starts Chromium at the new-session request
    watch.tick();
    watch.tick();
    expect(gone).toEqual([]);
    processes.delete(11);
    watch.tick();
    watch.tick();
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
    watch.tick();
    zombies.add(11);
    processes.set(21, 1);
    watch.tick();
    watch.tick();
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
    watch.tick();
    failing.now = true;
    processes.delete(11);
    processes.delete(21);
    watch.tick();
    expect(gone).toEqual([]);
    failing.now = false;
    watch.unwatch('20');
    watch.tick();
    watch.tick();
    expect(gone).toEqual(['10']);
    watch.close();
  });

  it("finds a real process's child in /proc, started by any of its threads, and reports it once it ended", async () => {
    // The node process stands for chromedriver, which starts Chromium from a thread of its own: here a
    // worker thread starts the sleep that stands for Chromium.
    const starter = `const { Worker } = require('node:worker_threads');
      new Worker("require('node:child_process').spawn('sleep', ['60'], { stdio: 'ignore' }); setInterval(() => {}, 1000)", { eval: true });`;
    const driver = spawn(process.execPath, ['-e', starter], { stdio: 'ignore' });
    const driverPid = driver.pid as number;
    const childOf = () =>
      readdirSync(`/proc/${driverPid}/task`).flatMap((thread) =>
        readFileSync(`/proc/${driverPid}/task/${thread}/children`, 'utf8').split(' ').filter(Boolean),
      );
    try {
      const gone: string[] = [];
      const watch = new BrowserWatch((handle) => gone.push(handle), undefined, 60_000);
      watch.watch('driver', driverPid);
      await until(() => childOf().length > 0, 'the worker thread started its child');
      watch.tick();
      watch.tick();
      expect(gone).toEqual([]);
      // Not the main thread's: the look must read every thread's children.
      expect(readFileSync(`/proc/${driverPid}/task/${driverPid}/children`, 'utf8').trim()).toBe('');
      process.kill(Number(childOf()[0]), 'SIGKILL');
      await until(() => {
        watch.tick();
        return gone.length > 0;
      }, 'the ended child is reported');
      expect(gone).toEqual(['driver']);
      watch.close();
    } finally {
      for (const child of (() => {
        try {
          return childOf();
        } catch {
          return [];
        }
      })())
        process.kill(Number(child), 'SIGKILL');
      driver.kill('SIGKILL');
      await once(driver, 'exit').catch(() => undefined);
    }
  });
});
