/**
 * The scheduled cleanup as the cleanup Lambda runs it (entry/aws-cleanup.ts), for tests that give their own
 * fakes through its makers: made with its first pass, so a test sets its world up first, then made once,
 * as in a Lambda environment.
 */
import { madeOnFirstUse } from '../../functions/core/made-on-first-use';
import { type OrphanCleanup, type OrphanCleanupDeps, orphanCleanup } from '../../functions/entry/aws-cleanup';
import type { CleanupContext } from '../../functions/pools/pool-kind';

export function cleanupRuns(deps: OrphanCleanupDeps): OrphanCleanup {
  const made = madeOnFirstUse(() => orphanCleanup(deps));
  return async (options) => (await made())(options);
}

/** AWS for a cleanup whose kinds sign nothing with its credentials (their makers are the test's). */
export const NO_AWS_IDENTITY: CleanupContext['aws'] = {
  identity: async () => {
    throw new Error('no kind signs with the AWS credentials in this test');
  },
};
