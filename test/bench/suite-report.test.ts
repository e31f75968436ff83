/** The suite part's report: a test whose outcome differs between the sides is named, with both outcomes. */
import { describe, expect, it } from 'vitest';
import type { SuiteRun } from '../../bench/suite-ratio';
import { formatSuiteReport, suiteReport } from '../../bench/suite-report';
import { suiteTime } from '../../bench/suite-time';
import { compare } from '../../scripts/wpt/compare';
import type { Results, TestResult } from '../../scripts/wpt/pytest-run';

const cpu = { sampled: 1, total: 1, byProgram: { chromium: 1 } };

function run(chromedriver: Results, gridgate: Results): SuiteRun {
  const passed = (results: Results) => [...results.values()].filter((r) => r.outcome === 'passed').length;
  return {
    seconds: { chromedriver: 10, gridgate: 10.2 },
    cpuSeconds: { chromedriver: 1, gridgate: 1 },
    cpu: { chromedriver: cpu, gridgate: cpu },
    tests: chromedriver.size,
    passed: { chromedriver: passed(chromedriver), gridgate: passed(gridgate) },
    differences: compare(chromedriver, gridgate).differences,
    time: suiteTime(chromedriver, gridgate),
    workers: 1,
    first: 'chromedriver',
    load1m: 0.5,
    busyBefore: { chromedriver: 0.05, gridgate: 0.05 },
  };
}

const ok: TestResult = {
  outcome: 'passed',
  message: '',
  seconds: 1,
  phases: { setup: 0.25, call: 0.5, teardown: 0.25 },
};
const results = (entries: [string, TestResult][]): Results => new Map(entries);

describe('formatSuiteReport', () => {
  it('names a test that passed against chromedriver and failed through gridgate, with its message', () => {
    const text = formatSuiteReport(
      suiteReport({
        files: 1,
        runs: [
          run(
            results([
              ['tests/back/back.py::test_a', ok],
              ['tests/back/back.py::test_b', ok],
            ]),
            results([
              ['tests/back/back.py::test_a', ok],
              ['tests/back/back.py::test_b', { ...ok, outcome: 'failed', message: 'no such window' }],
            ]),
          ),
        ],
      }),
    );
    expect(text).toContain('(passed counts differ!)');
    expect(text).toContain('run 1 (1 worker(s)) differs [regression]: tests/back/back.py::test_b');
    expect(text).toContain('gridgate:     failed: no such window');
  });

  it('says every outcome was the same when none differs', () => {
    const same = results([['tests/back/back.py::test_a', ok]]);
    const text = formatSuiteReport(suiteReport({ files: 1, runs: [run(same, same)] }));
    expect(text).toContain('Same outcome for every test in every run.');
    expect(text).not.toContain('differs');
  });

  it("says which directories and tests took longer through gridgate, by the tests' own seconds", () => {
    // A test's time split as its setup (the session) and its call (the commands); teardown 0.
    const timed = (setup: number, call: number): TestResult => ({
      ...ok,
      seconds: setup + call,
      phases: { setup, call, teardown: 0 },
    });
    const text = formatSuiteReport(
      suiteReport({
        files: 2,
        runs: [
          run(
            results([
              ['tests/back/back.py::test_a', timed(0.5, 0.5)],
              ['tests/navigate_to/navigate.py::test_b', timed(1, 1)],
              ['tests/navigate_to/navigate.py::test_c', timed(1, 2)],
            ]),
            results([
              ['tests/back/back.py::test_a', timed(0.5, 0.4)],
              ['tests/navigate_to/navigate.py::test_b', timed(1.5, 1)],
              ['tests/navigate_to/navigate.py::test_c', timed(1, 2.25)],
            ]),
          ),
        ],
      }),
    );
    expect(text).toContain(
      'all +0.7 of 6.0; by phase: setup +0.5 of 2.5, call +0.2 of 3.5, teardown +0.0 of 0.0; by directory: navigate_to +0.8 of 5.0, back -0.1 of 1.0',
    );
    expect(text).toContain(
      'most longer: tests/navigate_to/navigate.py::test_b +0.50 of 2.00, tests/navigate_to/navigate.py::test_c +0.25 of 3.00, tests/back/back.py::test_a -0.10 of 1.00',
    );
  });
});
