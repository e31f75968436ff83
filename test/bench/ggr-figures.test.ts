/** ggr's figures in the browser parts' results: per 10,000 commands, per new session, and their absence. */
import { describe, expect, it } from 'vitest';
import { commandCpu } from '../../bench/command-cpu';
import type { NewSessionRun, SessionCpu } from '../../bench/new-session-latency';
import type { TreeCpu } from '../../bench/process-cpu';
import { newSessionReport } from '../../bench/report';

const tree = (...processes: [number, string, number][]): TreeCpu =>
  new Map(processes.map(([pid, program, own]) => [pid, { program, own, reaped: 0 }]));
const idle = tree([1, 'node', 0]);

describe('commandCpu', () => {
  const before = { gridgate: idle, direct: idle, nginx: idle, plainNode: idle };

  it('counts ggr’s process per command it routed, split at its own turns, and its browser apart', () => {
    const cpu = commandCpu(
      { ...before, ggr: tree([7, 'ggr', 1]), ggrBrowser: tree([8, 'chromedriver', 2], [9, 'chromium', 10]) },
      {
        ...before,
        ggr: tree([7, 'ggr', 1.5]),
        ggrBrowser: tree([8, 'chromedriver', 2.5], [9, 'chromium', 12]),
      },
      5000,
      { ggr: 0.4 },
    );
    expect(cpu.ggr).toBeCloseTo(1);
    expect(cpu.ggrTurns).toBeCloseTo(0.8);
    expect(cpu.ggrBetweenTurns).toBeCloseTo(0.2);
    expect(cpu.ggrBrowser).toBeCloseTo(5);
  });

  it('has no ggr figures when ggr was not started', () => {
    const cpu = commandCpu(before, before, 5000, {});
    expect(cpu).not.toHaveProperty('ggr');
    expect(cpu).not.toHaveProperty('ggrBrowser');
  });
});

describe('newSessionReport', () => {
  const sessionCpu = (seconds: number): SessionCpu => ({
    toAnswer: seconds,
    withAftermath: 2 * seconds,
    byProgram: { toAnswer: { chromium: seconds }, withAftermath: { chromium: 2 * seconds } },
  });
  const plan = { rounds: 4, minRounds: 4, budgetMs: 1000, warmup: 0, warm: 0 };
  const withGgr: NewSessionRun = {
    samples: { direct: [500, 500, 500, 500], gridgate: [600, 600, 600, 600], ggr: [400, 400, 400, 400] },
    cpu: {
      direct: Array(4).fill(sessionCpu(1)),
      gridgate: Array(4).fill(sessionCpu(1.2)),
      ggr: Array(4).fill(sessionCpu(0.8)),
    },
    rounds: Array(4).fill({ first: 'direct', ms: { direct: 500, gridgate: 600, ggr: 400 } }),
    warmTaken: 0,
  };

  it('sets gridgate against ggr: ratio of medians, per-round ratios and CPU', () => {
    const report = newSessionReport(withGgr, plan);
    if ('skipped' in report.ggr) throw new Error('ggr was measured');
    expect(report.ggr.median.median).toBe(400);
    expect(report.ggr.gridgateOverGgr.median).toBeCloseTo(1.5);
    expect(report.ggr.roundRatio.median).toBeCloseTo(1.5);
    expect(report.cpu.ggr?.toAnswer.median).toBeCloseTo(0.8);
    expect(report.ratio.median).toBeCloseTo(1.2);
  });

  it('says why ggr is missing instead of inventing figures', () => {
    const { ggr: _samples, ...samples } = withGgr.samples;
    const { ggr: _cpu, ...cpu } = withGgr.cpu;
    const report = newSessionReport({ ...withGgr, samples, cpu }, plan, 0, 'no ggr binary');
    expect(report.ggr).toEqual({ skipped: 'no ggr binary' });
    expect(report.cpu).not.toHaveProperty('ggr');
  });
});
