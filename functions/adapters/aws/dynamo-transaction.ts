/** Reading why DynamoDB cancelled a TransactWriteItems call, and when trying again is the answer. */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Backoff, backoffMs } from '../../core/backoff';

export interface CancellationReason {
  Code?: string;
  Item?: Record<string, unknown>;
}

/** The per-item reasons of a cancelled transaction, in request order; undefined for any other error. */
export function cancellationReasons(error: unknown): CancellationReason[] | undefined {
  if ((error as { name?: string } | undefined)?.name !== 'TransactionCanceledException') return undefined;
  return (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
}

export const conditionFailed = (reason: CancellationReason | undefined): boolean =>
  reason?.Code === 'ConditionalCheckFailed';

/**
 * Another transaction held one of the items (TransactionConflict). The SDK does not retry a cancelled
 * transaction, so the caller does, with jittered backoff so racing callers spread out.
 */
export const conflicted = (reasons: CancellationReason[]): boolean =>
  reasons.some((reason) => reason.Code === 'TransactionConflict');

// Racing heads on one pool's counter conflict until they spread out: ten tries span a few seconds,
// well inside the new-session deadline.
export const MAX_ATTEMPTS = 10;

/** Full jitter over an exponential ceiling: 0–50 ms, then 0–100 ms, … capped at 1 s. */
const CONFLICT_BACKOFF: Backoff = { firstMs: 50, maxMs: 1000, factor: 2, jitter: 'full' };

/** Waits before try `attempt + 1` (attempts count from 1). */
export async function backoff(attempt: number): Promise<void> {
  await sleep(backoffMs(CONFLICT_BACKOFF, attempt - 1));
}
