/**
 * The sweeps a head runs over its sessions, each over the sessions the ownership rule gives it
 * (session-ownership.ts): expiry, stale slots, and with a shared store the browsers here whose sessions
 * another head ended.
 */
import { freeStaleSlots } from '../core/free-stale-slots';
import type { GridDeps } from '../core/grid-deps';
import { type PeriodicTask, runEvery } from '../core/periodic-task';
import { expireSessions } from './expire-sessions';
import { type HeadFacts, type HeadSessions, headSessions } from './session-ownership';
import { type BrowserOfSession, stopBrowsersEndedElsewhere } from './stop-browsers-ended-elsewhere';

export interface SweepFacts extends HeadFacts {
  sweepMs: number;
  /** The browsers this head runs for sessions another head may end (its containers). */
  browsersHere: () => readonly BrowserOfSession[];
}

/** Starts the sweeps; what this head's shutdown ends is the rule's too. */
export function startHeadSweeps(
  deps: GridDeps,
  facts: SweepFacts,
): { sweeps: PeriodicTask[]; endedAtShutdown: HeadSessions['endedAtShutdown'] } {
  const { sweepMs } = facts;
  const { endedAtShutdown, mine, gone } = headSessions(deps, facts);
  const sweeps = [
    runEvery('expiry sweep', sweepMs, () => expireSessions(deps, { mine, gone }), deps.logger),
    // A head that died between taking a slot and recording its session (or a release the store refused)
    // would keep the slot for good: whichever head sweeps first frees it.
    runEvery('stale-slot sweep', sweepMs, () => freeStaleSlots(deps, facts.staleSlotGraceMs), deps.logger),
  ];
  // A container whose session another head ended (the record only: the container is this head's) goes soon.
  if (facts.shared) {
    const endedElsewhere = () => stopBrowsersEndedElsewhere(deps, facts.browsersHere());
    sweeps.push(runEvery('sessions ended elsewhere', sweepMs, endedElsewhere, deps.logger));
  }
  return { sweeps, endedAtShutdown };
}
