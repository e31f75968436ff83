/**
 * CPU per 10,000 commands of each process on the command benchmark's paths, from /proc (process-cpu.ts):
 * gridgate's Node process and the plain Node proxy (each also split into its own turns and the time between
 * them, where only background work runs: gridgate's timers, browser watch and sweeps; V8's own threads; the
 * last command's tail), the pasta that forwards into gridgate's browser's namespace, nginx, ggr (split the
 * same way) and the browsers (chromedriver and Chromium): direct's, gridgate's and ggr's. Each path but `direct`
 * sends `sent` commands; `direct` four times as many (it takes every other turn but ggr's); gridgate's browser
 * serves the four paths in front of it, ggr's browser ggr alone.
 */
import { cpuBetween, cpuByProgram, readTreeCpu, type TreeCpu } from './process-cpu';
import type { SessionPairPids } from './session-pair';

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
  /** ggr's process (Go, all its threads) and its split, as for the Node proxies; when ggr was measured. */
  ggr?: number;
  ggrTurns?: number;
  ggrBetweenTurns?: number;
  /** chromedriver + Chromium behind ggr, per command it answered. */
  ggrBrowser?: number;
}

type Readings = Record<Exclude<keyof SessionPairPids, 'ggr' | 'ggrBrowser'>, TreeCpu> &
  Partial<Record<'ggr' | 'ggrBrowser', TreeCpu>>;

export function readCommandCpu(pids: SessionPairPids): Readings {
  return {
    gridgate: readTreeCpu(pids.gridgate),
    direct: readTreeCpu(pids.direct),
    nginx: readTreeCpu(pids.nginx),
    plainNode: readTreeCpu(pids.plainNode),
    ...(pids.ggr === undefined ? {} : { ggr: readTreeCpu(pids.ggr) }),
    ...(pids.ggrBrowser === undefined ? {} : { ggrBrowser: readTreeCpu(pids.ggrBrowser) }),
  };
}

const PASTA = /^pas(ta|st)/;

/** `turnsCpu`: CPU seconds gridgate's Node, the plain proxy and ggr spent during their own turns (command-latency.ts). */
export function commandCpu(
  before: Readings,
  after: Readings,
  sent: number,
  turnsCpu: Partial<Record<'gridgate' | 'plainNode' | 'ggr', number>> = {},
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
  const { gridgate: gridgateTurns, plainNode: plainNodeTurns, ggr: ggrTurns } = turnsCpu;
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
    ...ggrCpu(before, after, sent, ggrTurns),
  };
}

/** ggr's share of CommandCpu: nothing when it was not measured. */
function ggrCpu(
  before: Readings,
  after: Readings,
  sent: number,
  turns: number | undefined,
): Pick<CommandCpu, 'ggr' | 'ggrTurns' | 'ggrBetweenTurns' | 'ggrBrowser'> {
  if (!before.ggr || !after.ggr || !before.ggrBrowser || !after.ggrBrowser) return {};
  const ggr = cpuBetween(before.ggr, after.ggr);
  const per10k = (seconds: number) => (seconds / sent) * 10_000;
  return {
    ggr: per10k(ggr),
    ...(turns === undefined ? {} : { ggrTurns: per10k(turns), ggrBetweenTurns: per10k(ggr - turns) }),
    ggrBrowser: per10k(cpuBetween(before.ggrBrowser, after.ggrBrowser)),
  };
}
