/**
 * Notices a session's Chromium dying while its chromedriver lives on. chromedriver then only answers
 * "invalid session id" and keeps its port, the profile and the session's slot, so the launcher would never
 * hear of it: the browser chromedriver started (its child, found in /proc once it runs) is checked every
 * tick, and once it is gone the session's handle is reported.
 */
import { readdir, readFile } from 'node:fs/promises';

const TICK_MS = 1000;

/** What the watch needs of the process table; /proc by default, a fake in tests. */
export interface ProcessTable {
  /** Parent pid of each process, by pid. */
  parents(): Promise<Map<number, number>>;
  /** The parent of `pid` while it runs (not a zombie), undefined once it is gone. */
  parentWhileRunning(pid: number): Promise<number | undefined>;
}

interface Watched {
  driverPid: number;
  /** chromedriver's browser, once it has started one. */
  browserPid?: number;
  /** Seen gone at the last look. */
  missing?: boolean;
}

export class BrowserWatch {
  private readonly watched = new Map<string, Watched>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;

  constructor(
    private readonly onGone: (handle: string) => void,
    private readonly table: ProcessTable = procTable,
    private readonly tickMs = TICK_MS,
  ) {}

  /** Watches the browser chromedriver `driverPid` will start for the session `handle`. */
  watch(handle: string, driverPid: number): void {
    this.watched.set(handle, { driverPid });
    // tick() settles every look itself and never rejects.
    this.timer ??= setInterval(() => {
      this.tick().catch(() => undefined);
    }, this.tickMs).unref();
  }

  unwatch(handle: string): void {
    this.watched.delete(handle);
    if (this.watched.size === 0) this.close();
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One look at every watched browser; a failed look is tried again at the next tick. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      await this.findBrowsers();
      for (const [handle, entry] of this.watched) {
        if (entry.browserPid === undefined) continue;
        if ((await this.table.parentWhileRunning(entry.browserPid)) === entry.driverPid) continue;
        // Gone at two looks in a row: a client's own DELETE closes the browser too, and the launcher's
        // stop() unwatches it right after chromedriver answers, well within one tick.
        if (!entry.missing) {
          entry.missing = true;
          continue;
        }
        if (this.watched.get(handle) !== entry) continue; // stopped meanwhile
        this.unwatch(handle);
        this.onGone(handle);
      }
    } catch {
      // /proc could not be read this time; the browsers are still there to look at next time.
    } finally {
      this.ticking = false;
    }
  }

  /** Browsers not seen yet: one pass over the process table for all of them. */
  private async findBrowsers(): Promise<void> {
    const unseen = [...this.watched.values()].filter((entry) => entry.browserPid === undefined);
    if (unseen.length === 0) return;
    const byParent = new Map<number, number>();
    for (const [pid, parent] of await this.table.parents()) byParent.set(parent, pid);
    for (const entry of unseen) entry.browserPid = byParent.get(entry.driverPid);
  }
}

/** /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses, so split after the last ")". */
function statFields(stat: string): { state: string; parent: number } {
  const [state = '', parent = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state, parent: Number(parent) };
}

const procTable: ProcessTable = {
  async parents() {
    const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
    const parents = new Map<number, number>();
    await Promise.all(
      pids.map(async (pid) => {
        const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
        if (stat) parents.set(Number(pid), statFields(stat).parent);
      }),
    );
    return parents;
  },
  async parentWhileRunning(pid) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
    if (!stat) return undefined;
    const { state, parent } = statFields(stat);
    return state === 'Z' || state === 'X' ? undefined : parent;
  },
};
