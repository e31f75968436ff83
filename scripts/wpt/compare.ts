/**
 * The two result sets side by side: per directory, how many tests passed on each side; per test, where the
 * outcomes differ. A test that passes against chromedriver and not through gridgate is a regression, unless
 * it checks something gridgate does differently on purpose (DOCUMENTED_DEVIATIONS, described in docs/conformance.md).
 */
import type { Outcome, Results } from './pytest-run';

/** Tests gridgate fails by design, and why. */
export const DOCUMENTED_DEVIATIONS: Record<string, string> = {
  'tests/new_session/response.py::test_sessionid':
    'the session ID is a signed token that carries where the browser runs (W3C §8.1 says a UUID)',
};

export interface DirectoryCounts {
  directory: string;
  tests: number;
  chromedriver: Record<Outcome, number>;
  gridgate: Record<Outcome, number>;
}

export interface Difference {
  test: string;
  chromedriver: string;
  gridgate: string;
  kind: 'regression' | 'deviation' | 'other';
}

export interface Comparison {
  directories: DirectoryCounts[];
  differences: Difference[];
  regressions: number;
}

const OUTCOMES: Outcome[] = ['passed', 'failed', 'skipped', 'error'];
const MISSING = 'not run';

export function compare(chromedriver: Results, gridgate: Results): Comparison {
  const tests = [...new Set([...chromedriver.keys(), ...gridgate.keys()])].sort();
  const byDirectory = new Map<string, DirectoryCounts>();
  const differences: Difference[] = [];
  for (const test of tests) {
    const directory = test.split('/')[1] ?? test;
    const counts = byDirectory.get(directory) ?? {
      directory,
      tests: 0,
      chromedriver: zero(),
      gridgate: zero(),
    };
    byDirectory.set(directory, counts);
    counts.tests++;
    const reference = chromedriver.get(test);
    const grid = gridgate.get(test);
    if (reference) counts.chromedriver[reference.outcome]++;
    if (grid) counts.gridgate[grid.outcome]++;
    if (reference?.outcome === grid?.outcome) continue;
    const kind =
      reference?.outcome !== 'passed' ? 'other' : test in DOCUMENTED_DEVIATIONS ? 'deviation' : 'regression';
    differences.push({
      test,
      chromedriver: describe(reference),
      gridgate: describe(grid),
      kind,
    });
  }
  return {
    directories: [...byDirectory.values()],
    differences,
    regressions: differences.filter((d) => d.kind === 'regression').length,
  };
}

function zero(): Record<Outcome, number> {
  return { passed: 0, failed: 0, skipped: 0, error: 0 };
}

function describe(result: { outcome: Outcome; message: string } | undefined): string {
  if (!result) return MISSING;
  return result.message && result.outcome !== 'passed'
    ? `${result.outcome}: ${result.message}`
    : result.outcome;
}

/** The comparison as text: a table of counts per directory, then every test whose outcomes differ. */
export function formatComparison(comparison: Comparison): string {
  const lines = [
    '| directory | tests | chromedriver passed | gridgate passed | failed (cd / gg) |',
    '|---|---|---|---|---|',
  ];
  const total = { tests: 0, chromedriver: zero(), gridgate: zero() };
  for (const counts of comparison.directories) {
    lines.push(row(counts.directory, counts.tests, counts.chromedriver, counts.gridgate));
    total.tests += counts.tests;
    for (const outcome of OUTCOMES) {
      total.chromedriver[outcome] += counts.chromedriver[outcome];
      total.gridgate[outcome] += counts.gridgate[outcome];
    }
  }
  lines.push(row('**all**', total.tests, total.chromedriver, total.gridgate));
  if (comparison.differences.length === 0) return `${lines.join('\n')}\n\nSame outcome for every test.`;
  lines.push('', 'Tests whose outcomes differ:');
  for (const d of comparison.differences) {
    const why = d.kind === 'deviation' ? ` (by design: ${DOCUMENTED_DEVIATIONS[d.test]})` : '';
    lines.push(
      `- [${d.kind}] ${d.test}${why}`,
      `    chromedriver: ${d.chromedriver}`,
      `    gridgate:     ${d.gridgate}`,
    );
  }
  return lines.join('\n');
}

function row(name: string, tests: number, cd: Record<Outcome, number>, gg: Record<Outcome, number>): string {
  const failed = (counts: Record<Outcome, number>) => counts.failed + counts.error;
  return `| ${name} | ${tests} | ${cd.passed} | ${gg.passed} | ${failed(cd)} / ${failed(gg)} |`;
}
