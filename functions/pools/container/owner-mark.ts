/**
 * Marks what a gridgate process starts outside itself (its containers) so that a later process can tell
 * whether the owner still runs: its pid and the tick it started at (/proc/<pid>/stat field 22), so a pid the
 * kernel has given to another program since is not mistaken for the owner.
 */
import { readFileSync } from 'node:fs';

/** The start tick of a running process, or undefined once it is gone. */
function startTick(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ")".
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** This process's mark: "<pid>-<start tick>". */
export function ownMark(): string {
  return `${process.pid}-${startTick(process.pid) ?? '0'}`;
}

/** Whether the process a mark names still runs (a mark not made by ownMark() is never alive). */
export function markAlive(mark: string): boolean {
  const match = /^(\d+)-(\d+)$/.exec(mark);
  return match !== null && startTick(Number(match[1])) === match[2];
}
