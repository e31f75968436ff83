/**
 * CPU time (user + system) a process and everything below it spend between two readings, from
 * /proc/PID/stat: what a server costs per request or per session whatever else loads the machine, where
 * wall-clock time on a shared machine measures mostly the other load.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { descendants } from './process-tree';

// Linux counts /proc CPU times in clock ticks of 1/100 s (USER_HZ; getconf CLK_TCK) on every usual build.
const TICKS_PER_SECOND = 100;

/** One process's CPU seconds so far: its own (all its threads), and its children's it has waited for. */
export interface ProcessCpu {
  /** The program's name as the kernel has it (comm: at most 15 characters). */
  program: string;
  own: number;
  reaped: number;
}

/** CPU per live process of a tree at one moment. */
export type TreeCpu = ReadonlyMap<number, ProcessCpu>;

/**
 * The process's CPU time; undefined once it is gone. Counting the waited-for children (cutime, cstime)
 * keeps short-lived helpers (a `setpriv`, an `nft` run) that ended before the second reading.
 */
function processCpu(pid: number): ProcessCpu | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state …": after the comm, state is field 3, utime 14, stime 15, cutime 16, cstime 17.
    const program = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    const seconds = (a: number, b: number) =>
      ((fields[a] as number) + (fields[b] as number)) / TICKS_PER_SECOND;
    return { program, own: seconds(11, 12), reaped: seconds(13, 14) };
  } catch {
    return undefined;
  }
}

/** Reads the CPU time of `roots` and every process below them. */
export function readTreeCpu(...roots: number[]): TreeCpu {
  const found = new Map<number, ProcessCpu>();
  for (const pid of roots.flatMap((root) => [root, ...descendants(root)])) {
    const cpu = processCpu(pid);
    if (cpu !== undefined) found.set(pid, cpu);
  }
  return found;
}

/**
 * What cpuBetween counts, by program: each process's own time under its name, what it reaped from
 * children that ended under "name's ended children" (pasta's, nft's and ip's runs are gridgate's).
 */
export function cpuByProgram(before: TreeCpu, after: TreeCpu): Record<string, number> {
  const byProgram: Record<string, number> = {};
  const add = (name: string, seconds: number) => {
    if (seconds !== 0) byProgram[name] = (byProgram[name] ?? 0) + seconds;
  };
  for (const [pid, now] of after) {
    const then = before.get(pid);
    add(now.program, now.own - (then?.own ?? 0));
    add(`${now.program}'s ended children`, now.reaped - (then?.reaped ?? 0));
  }
  return byProgram;
}

/**
 * CPU seconds the tree spent from `before` to `after`: a process there both times counts its growth, one
 * started in between counts all it used. A process gone by `after` counts only through a parent that
 * waited for it and is still there (then with all its life's CPU time, so a long-lived process that ends
 * in between is over-counted by what it used before: read around work that does not end servers).
 */
export function cpuBetween(before: TreeCpu, after: TreeCpu): number {
  return Object.values(cpuByProgram(before, after)).reduce((sum, seconds) => sum + seconds, 0);
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

/**
 * CPU nanoseconds all of the process's threads have run so far (/proc/PID/task/TID/schedstat, first field:
 * time on a CPU, counted by the scheduler in ns), 0 once it is gone. Fine enough to read around one request,
 * where /proc/PID/stat counts in 10 ms ticks; it includes no ended children.
 */
export function threadsCpuNanos(pid: number): number {
  let nanos = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        nanos += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // that thread ended meanwhile
      }
    }
  } catch {
    return 0;
  }
  return nanos;
}
