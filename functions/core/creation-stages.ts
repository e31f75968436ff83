/** The order of a new session's creation stages (ports.ts CreationStage), for marks that only move forward. */
import type { CreationStage } from './ports';

export const CREATION_STAGES: readonly CreationStage[] = ['queue', 'launch', 'pull', 'driver', 'session'];

/** Where the stage comes in the creation: 0 for `queue` up to 4 for `session`; -1 for anything else. */
export function stageRank(stage: unknown): number {
  return CREATION_STAGES.indexOf(stage as CreationStage);
}
