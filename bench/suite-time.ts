/**
 * Where one suite run's extra time went: each test's seconds through gridgate less its seconds against
 * chromedriver (pytest's own timing of setup, call and teardown, wpt_outcomes.py), summed by test directory,
 * and the tests that took the most longer. With one worker the tests' seconds add up to nearly all of the
 * wall time (pytest's start and collection aside), so the sums say which kinds of command carry the gap.
 */
import { type Results, TEST_PHASES } from '../scripts/wpt/pytest-run';

export interface ExtraSeconds {
  name: string;
  /** gridgate's seconds less chromedriver's (negative: faster through gridgate). */
  extra: number;
  /** chromedriver's seconds, for scale. */
  chromedriver: number;
}

export interface SuiteTime {
  /** Test directories ("navigate_to"), the most extra time first. */
  byDirectory: ExtraSeconds[];
  /** The tests that took the most longer through gridgate, the most first. */
  slowest: ExtraSeconds[];
  /** All tests run on both sides. */
  total: ExtraSeconds;
  /** The same by pytest's phase: setup (the session's start), call (the test's commands), teardown. */
  byPhase: ExtraSeconds[];
}

const SLOWEST = 5;

/** "tests/navigate_to/navigate.py::test_x" → "navigate_to". */
const directoryOf = (test: string) => test.split('/')[1] ?? test;

export function suiteTime(chromedriver: Results, gridgate: Results): SuiteTime {
  const tests: ExtraSeconds[] = [];
  const byPhase = TEST_PHASES.map((name): ExtraSeconds => ({ name, extra: 0, chromedriver: 0 }));
  for (const [name, through] of gridgate) {
    const direct = chromedriver.get(name);
    if (!direct) continue;
    tests.push({ name, extra: through.seconds - direct.seconds, chromedriver: direct.seconds });
    TEST_PHASES.forEach((phase, i) => {
      const sum = byPhase[i] as ExtraSeconds;
      sum.extra += through.phases[phase] - direct.phases[phase];
      sum.chromedriver += direct.phases[phase];
    });
  }
  const directories = new Map<string, ExtraSeconds>();
  for (const test of tests) {
    const name = directoryOf(test.name);
    const sum = directories.get(name) ?? { name, extra: 0, chromedriver: 0 };
    directories.set(name, {
      name,
      extra: sum.extra + test.extra,
      chromedriver: sum.chromedriver + test.chromedriver,
    });
  }
  const mostFirst = (a: ExtraSeconds, b: ExtraSeconds) => b.extra - a.extra;
  return {
    byDirectory: [...directories.values()].sort(mostFirst),
    slowest: [...tests].sort(mostFirst).slice(0, SLOWEST),
    total: {
      name: 'all',
      extra: tests.reduce((sum, test) => sum + test.extra, 0),
      chromedriver: tests.reduce((sum, test) => sum + test.chromedriver, 0),
    },
    byPhase,
  };
}

const signed = (seconds: number, digits: number) => `${seconds >= 0 ? '+' : ''}${seconds.toFixed(digits)}`;

/** Two lines: the extra seconds by phase and directory (of their chromedriver seconds), then the slowest tests. */
export function suiteTimeLines(time: SuiteTime): string[] {
  const part = (entry: ExtraSeconds, digits: number) =>
    `${entry.name} ${signed(entry.extra, digits)} of ${entry.chromedriver.toFixed(digits)}`;
  return [
    `tests' own seconds, gridgate less chromedriver: ${part(time.total, 1)}; by phase: ${time.byPhase.map((p) => part(p, 1)).join(', ')}; by directory: ${time.byDirectory.map((d) => part(d, 1)).join(', ')}`,
    `most longer: ${time.slowest.map((t) => part(t, 2)).join(', ')}`,
  ];
}
