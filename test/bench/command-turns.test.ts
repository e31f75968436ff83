/** The command benchmark's turns: every path's mixes interleaved, the two shared browsers' traffic balanced. */
import { describe, expect, it } from 'vitest';
import { COMMAND_PATHS, type CommandPathName, turnOrder } from '../../bench/command-latency';

const count = (turn: readonly CommandPathName[], name: CommandPathName) =>
  turn.filter((path) => path === name).length;
const GRIDGATE_BROWSER: readonly CommandPathName[] = ['gridgate', 'sameBrowser', 'nginx', 'plainNode'];

describe('turnOrder', () => {
  it('gives every measured path a turn, direct as many as the paths on gridgate’s browser', () => {
    for (const k of [0, 1]) {
      const turn = turnOrder(k, COMMAND_PATHS);
      for (const name of COMMAND_PATHS.filter((path) => path !== 'direct')) expect(count(turn, name)).toBe(1);
      expect(count(turn, 'direct')).toBe(GRIDGATE_BROWSER.length);
    }
  });

  it('never runs the same path twice in a row within a turn', () => {
    for (const k of [0, 1]) {
      const turn = turnOrder(k, COMMAND_PATHS);
      for (let i = 1; i < turn.length; i++) expect(turn[i]).not.toBe(turn[i - 1]);
    }
  });

  it('leaves out ggr where it was not started, the others in the same order', () => {
    const withoutGgr = COMMAND_PATHS.filter((path) => path !== 'ggr');
    for (const k of [0, 1]) {
      expect(turnOrder(k, withoutGgr)).toEqual(turnOrder(k, COMMAND_PATHS).filter((path) => path !== 'ggr'));
      expect(turnOrder(k, withoutGgr)).not.toContain('ggr');
    }
  });

  it('runs the second turn in another order than the first', () => {
    expect(turnOrder(1, COMMAND_PATHS)).not.toEqual(turnOrder(0, COMMAND_PATHS));
    expect(turnOrder(2, COMMAND_PATHS)).toEqual(turnOrder(0, COMMAND_PATHS));
  });
});
