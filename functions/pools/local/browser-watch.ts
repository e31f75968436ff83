/**
 * Notices a session's Chromium dying while its chromedriver lives on. chromedriver then only answers
 * "invalid session id" and keeps its port, the profile and the session's slot, so the launcher would never
 * hear of it: the browser chromedriver started (its child, found in /proc once it runs) is checked every
 * tick, and once it is gone the session's handle is reported.
 * /proc is read synchronously: a /proc file is made by the kernel at the read, in microseconds, where each
 * read through fs/promises took five hops to the thread pool (open, fstat, read, read, close), each waking
 * the event loop again, every second for every open session.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 1000;

/** What the watch needs of the process table; /proc by default, a fake in tests. */
export interface ProcessTable {
  /** The children of `pid` (none once it is gone). */
  children(pid: number): number[];
  /** The parent of `pid` while it runs (not a zombie), undefined once it is gone. */
  parentWhileRunning(pid: number): number | undefined;
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

  constructor(
    private readonly onGone: (handle: string) => void,
    private readonly table: ProcessTable = procTable,
    private readonly tickMs = TICK_MS,
  ) {}

  /** Watches the browser chromedriver `driverPid` will start for the session `handle`. */
  watch(handle: string, driverPid: number): void {
    this.watched.set(handle, { driverPid });
    // tick() settles every look itself and never throws.
    this.timer ??= setInterval(() => this.tick(), this.tickMs).unref();
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
  tick(): void {
    try {
      this.findBrowsers();
      for (const [handle, entry] of this.watched) {
        if (entry.browserPid === undefined) continue;
        if (this.table.parentWhileRunning(entry.browserPid) === entry.driverPid) continue;
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
    }
  }

  /** Browsers not seen yet: chromedriver's child, once it has started one. */
  private findBrowsers(): void {
    for (const entry of this.watched.values())
      if (entry.browserPid === undefined) entry.browserPid = this.table.children(entry.driverPid)[0];
  }
}

/** /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses, so split after the last ")". */
function statFields(stat: string): { state: string; parent: number } {
  const [state = '', parent = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state, parent: Number(parent) };
}

const procTable: ProcessTable = {
  // The kernel lists children by the thread that started them (Linux 3.5+, CONFIG_PROC_CHILDREN): chromedriver
  // starts Chromium from a thread of its own.
  children(pid) {
    try {
      return readdirSync(`/proc/${pid}/task`).flatMap((thread) =>
        readFileSync(`/proc/${pid}/task/${thread}/children`, 'latin1').split(' ').filter(Boolean).map(Number),
      );
    } catch {
      return [];
    }
  },
  parentWhileRunning(pid) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      return undefined;
    }
    const { state, parent } = statFields(stat);
    return state === 'Z' || state === 'X' ? undefined : parent;
  },
};
