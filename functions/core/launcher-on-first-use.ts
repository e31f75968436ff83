/**
 * A launcher made when first asked to start or stop a browser, then kept for the process's life: a kind whose
 * SDK is a large part of a cold start (ecs, eks) is loaded with its first browser, not by every Lambda
 * environment that only forwards commands.
 */
import { madeOnFirstUse } from './made-on-first-use';
import type { Launcher } from './ports';

export function onFirstUse(make: () => Promise<Launcher>): Launcher {
  const launcher = madeOnFirstUse(make);
  return {
    start: async (request) => (await launcher()).start(request),
    stop: async (handle, context) => (await launcher()).stop(handle, context),
  };
}
