/** The round loop both benchmarks share: bounded by a count, cut short by a time budget. */
import type { RoundPlan } from './options';

/**
 * Runs `round(0)`, `round(1)`, … at most `plan.rounds` times. Once `plan.budgetMs` has passed, it
 * stops after the next even-numbered count of rounds that reaches `plan.minRounds`, so that each
 * path has gone first equally often. Returns how many rounds ran.
 */
export async function runRounds(plan: RoundPlan, round: (index: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  let done = 0;
  while (done < plan.rounds) {
    await round(done);
    done++;
    const overBudget = performance.now() - started >= plan.budgetMs;
    if (overBudget && done >= plan.minRounds && done % 2 === 0) break;
  }
  return done;
}
