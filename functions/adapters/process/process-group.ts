/**
 * Ending what gridgate started on this machine within bounds: a process group (chromedriver's and every
 * Chromium process under it) stopped with a short grace, and waiting for a child up to a deadline, since
 * shutdown and a video's flush must finish before a supervisor's own kill.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

// chromedriver gets this long to end on SIGTERM before its whole group is killed; kept short because
// shutdown must finish before a supervisor's own kill deadline (often 3 s after SIGTERM).
const STOP_GRACE_MS = 500;
const GROUP_EXIT_WAIT_MS = 2000;

/** A process group gridgate started: chromedriver's, or a warm browser's Chromium. */
export interface Group {
  child: ChildProcess;
  exited: Promise<void>;
}

/** SIGTERM, a short grace, then SIGKILL for whatever of the group is left, and wait until none is. */
export async function stopGroup({ child, exited }: Group): Promise<void> {
  killGroup(child, 'SIGTERM');
  const gone = await exitsWithin(exited, STOP_GRACE_MS);
  // Chromium outlives a chromedriver that is killed, so the whole group goes, now without asking.
  killGroup(child, 'SIGKILL');
  if (!gone) await exited;
  await groupGone(child);
}

/** Whether `exited` settles within `ms`. */
export async function exitsWithin(exited: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const result = await Promise.race([exited.then(() => true), timedOut]);
  clearTimeout(timer);
  return result;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Waits (briefly) until no process of the group runs, so "stopped" means stopped. */
async function groupGone(child: ChildProcess): Promise<void> {
  for (let waited = 0; waited < GROUP_EXIT_WAIT_MS && child.pid !== undefined; waited += 20) {
    if (!groupRuns(child.pid)) return;
    await delay(20);
  }
}

/**
 * Whether a process of group `pgid` still runs. A zombie does not: it has ended and holds nothing but its
 * process ID until its parent reaps it. Chromium's zygotes, orphaned when the group is killed, become the
 * children of PID 1, and a PID 1 that reaps late (seen here: ~2 s) or never (a container whose PID 1 is not an
 * init) would otherwise hold every stop for the whole wait, a DELETE among them.
 * /proc is read synchronously, stopping at the first member that runs: a /proc file is made at the read, in
 * microseconds, where fs/promises costs four thread-pool hops per file, and a session's stop scans every
 * process on the machine (130 here: 3 ms of CPU a scan against 17, 7 ms of wall time against 32).
 */
export function groupRuns(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true; // No /proc to tell zombies apart: what answers the signal counts as running.
  }
  return entries.some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    const state = memberState(Number(entry), pgid);
    return state !== undefined && state !== 'Z' && state !== 'X';
  });
}

/** The process's state letter (R, S, D, Z, …) when it belongs to group `pgid`; undefined otherwise or once gone. */
function memberState(pid: number, pgid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp …": the comm may hold spaces and parentheses, so fields count from its end.
  const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(group) === pgid ? state : undefined;
}

// These timers stay referenced: at shutdown they are what keeps Node alive until the browsers are gone.
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
