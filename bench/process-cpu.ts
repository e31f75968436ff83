/**
 * CPU time (user + system) a process and everything below it spend between two readings, from
 * /proc/PID/stat: what a server costs per request or per session whatever else loads the machine, where
 * wall-clock time on a shared machine measures mostly the other load.
 */
import { readFileSync } from 'node:fs';
import { descendants } from './process-tree';

// Linux counts /proc CPU times in clock ticks of 1/100 s (USER_HZ; getconf CLK_TCK) on every usual build.
const TICKS_PER_SECOND = 100;

/** CPU seconds per live process of a tree at one moment. */
export type TreeCpu = ReadonlyMap<number, number>;

/**
 * The process's own CPU time (all its threads) plus that of its children it has waited for (cutime,
 * cstime), in seconds; undefined once it is gone. Counting the waited-for children keeps short-lived
 * helpers (a `setpriv`, an `nft` run) that ended before the second reading.
 */
function ownAndReapedCpu(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state is field 3, utime 14, stime 15, cutime 16, cstime 17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
    return ticks / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Reads the CPU time of `roots` and every process below them. */
export function readTreeCpu(...roots: number[]): TreeCpu {
  const found = new Map<number, number>();
  for (const pid of roots.flatMap((root) => [root, ...descendants(root)])) {
    const seconds = ownAndReapedCpu(pid);
    if (seconds !== undefined) found.set(pid, seconds);
  }
  return found;
}

/**
 * CPU seconds the tree spent from `before` to `after`: a process there both times counts its growth, one
 * started in between counts all it used. A process gone by `after` counts only through a parent that
 * waited for it and is still there (then with all its life's CPU time, so a long-lived process that ends
 * in between is over-counted by what it used before: read around work that does not end servers).
 */
export function cpuBetween(before: TreeCpu, after: TreeCpu): number {
  let seconds = 0;
  for (const [pid, now] of after) seconds += now - (before.get(pid) ?? 0);
  return seconds;
}

/** Runs `work` and returns its result with the CPU seconds `roots`' trees spent meanwhile. */
export async function withTreeCpu<T>(
  roots: number[],
  work: () => Promise<T>,
): Promise<{ result: T; cpuSeconds: number }> {
  const before = readTreeCpu(...roots);
  const result = await work();
  return { result, cpuSeconds: cpuBetween(before, readTreeCpu(...roots)) };
}
