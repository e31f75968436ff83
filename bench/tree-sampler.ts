/**
 * CPU by program of a process tree over a long run in which processes come and go (a suite: a chromedriver,
 * a Chromium, a pasta per session): the tree is read every `intervalMs` and each process's own CPU is kept as
 * last seen. A process that ended is counted up to its last reading, one born and ended between two readings
 * not at all. The tree's total (cpuBetween) has the opposite gaps: it counts an ended process only through a
 * parent that waited for it, and misses one whose parent died first (a Chromium whose chromedriver was killed
 * is reaped by init). Both are reported; neither is spread over the other.
 */
import { cpuBetween, readTreeCpu, type TreeCpu } from './process-cpu';

interface Seen {
  program: string;
  /** Own CPU seconds when first seen: at the start for a process already running, else 0 (born during the run). */
  from: number;
  last: number;
}

export interface SampledCpu {
  /** CPU seconds of the whole tree over the run (process-cpu.ts cpuBetween). */
  total: number;
  /** Own CPU seconds by program (comm), as sampled. */
  byProgram: Record<string, number>;
  /** What the sampling saw, all programs together. */
  sampled: number;
}

export class TreeSampler {
  private readonly seen = new Map<number, Seen>();
  /** Processes whose pid a later one took. */
  private readonly gone: Seen[] = [];
  private readonly first: TreeCpu;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly root: number,
    intervalMs: number,
  ) {
    this.first = readTreeCpu(root);
    for (const [pid, cpu] of this.first)
      this.seen.set(pid, { program: cpu.program, from: cpu.own, last: cpu.own });
    this.timer = setInterval(() => this.sample(readTreeCpu(root)), intervalMs);
  }

  /** Takes a last reading and ends the sampling. */
  stop(): SampledCpu {
    clearInterval(this.timer);
    const last = readTreeCpu(this.root);
    this.sample(last);
    const byProgram: Record<string, number> = {};
    for (const { program, from, last: own } of [...this.seen.values(), ...this.gone])
      if (own > from) byProgram[program] = (byProgram[program] ?? 0) + own - from;
    const total = cpuBetween(this.first, last);
    const sampled = Object.values(byProgram).reduce((sum, seconds) => sum + seconds, 0);
    return { total, byProgram, sampled };
  }

  private sample(tree: TreeCpu): void {
    for (const [pid, cpu] of tree) {
      const known = this.seen.get(pid);
      // The name follows exec (a start script becomes setpriv, then chromium) and the time goes on; a pid
      // whose time went back is another process's.
      if (known && cpu.own >= known.last) {
        known.program = cpu.program;
        known.last = cpu.own;
        continue;
      }
      if (known) this.gone.push(known);
      this.seen.set(pid, { program: cpu.program, from: 0, last: cpu.own });
    }
  }
}
