/**
 * CPU per 10,000 commands of each process on the command benchmark's paths, from /proc (process-cpu.ts):
 * gridgate's Node process and the plain Node proxy (each also split into its own turns and the time between
 * them, where only background work runs: gridgate's timers, browser watch and sweeps; V8's own threads; the
 * last command's tail), the pasta that forwards into gridgate's browser's namespace, nginx, and the two
 * browsers (chromedriver and Chromium). Each path but `direct` sends `sent` commands; `direct` four
 * times as many (it takes every other turn); gridgate's browser serves the four paths in front of it.
 */
import { cpuBetween, cpuByProgram, readTreeCpu, type TreeCpu } from './process-cpu';
import type { SessionPair } from './session-pair';

export interface CommandCpu {
  /** CPU seconds per 10,000 commands. */
  gridgateNode: number;
  /** Of gridgateNode, what its process spent during its own turns (the command path) and between them. */
  gridgateNodeTurns?: number;
  gridgateNodeBetweenTurns?: number;
  pasta: number;
  nginx: number;
  plainNode: number;
  /** Of plainNode, the same split, so that the two Node proxies' command paths are counted alike. */
  plainNodeTurns?: number;
  plainNodeBetweenTurns?: number;
  /** chromedriver + Chromium per command each answered, the bare one and the one behind gridgate. */
  directBrowser: number;
  gridgateBrowser: number;
}

type Readings = Record<keyof SessionPair['pids'], TreeCpu>;

export function readCommandCpu(pids: SessionPair['pids']): Readings {
  return {
    gridgate: readTreeCpu(pids.gridgate),
    direct: readTreeCpu(pids.direct),
    nginx: readTreeCpu(pids.nginx),
    plainNode: readTreeCpu(pids.plainNode),
  };
}

const PASTA = /^pas(ta|st)/;

/** `turnsCpu`: CPU seconds gridgate's Node and the plain proxy spent during their own turns (command-latency.ts). */
export function commandCpu(
  before: Readings,
  after: Readings,
  sent: number,
  turnsCpu: Partial<Record<'gridgate' | 'plainNode', number>> = {},
): CommandCpu {
  const grid = cpuByProgram(before.gridgate, after.gridgate);
  const gridgateNode = grid.node ?? 0;
  const pasta = Object.entries(grid)
    .filter(([program]) => PASTA.test(program))
    .reduce((sum, [, seconds]) => sum + seconds, 0);
  // What is left of gridgate's tree is its browser's: chromedriver, Chromium and their helpers.
  const gridgateBrowser =
    Object.values(grid).reduce((sum, seconds) => sum + seconds, 0) - gridgateNode - pasta;
  const plainNode = cpuBetween(before.plainNode, after.plainNode);
  const per10k = (seconds: number, commands: number) => (seconds / commands) * 10_000;
  const { gridgate: gridgateTurns, plainNode: plainNodeTurns } = turnsCpu;
  return {
    gridgateNode: per10k(gridgateNode, sent),
    ...(gridgateTurns === undefined
      ? {}
      : {
          gridgateNodeTurns: per10k(gridgateTurns, sent),
          gridgateNodeBetweenTurns: per10k(gridgateNode - gridgateTurns, sent),
        }),
    pasta: per10k(pasta, 4 * sent),
    nginx: per10k(cpuBetween(before.nginx, after.nginx), sent),
    plainNode: per10k(plainNode, sent),
    ...(plainNodeTurns === undefined
      ? {}
      : {
          plainNodeTurns: per10k(plainNodeTurns, sent),
          plainNodeBetweenTurns: per10k(plainNode - plainNodeTurns, sent),
        }),
    directBrowser: per10k(cpuBetween(before.direct, after.direct), 4 * sent),
    gridgateBrowser: per10k(gridgateBrowser, 4 * sent),
  };
}
