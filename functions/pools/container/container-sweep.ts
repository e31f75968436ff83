/**
 * The start-up sweep of container pools (DESIGN invariant 4's local backstop): containers that a gridgate
 * process killed outright (SIGKILL, out of memory) left behind carry its owner mark, and are removed once that
 * process is gone. Those of a gridgate still running (another server on the same machine) are left alone.
 */
import type { ContainerEngine } from './container-engine';
import { CONTAINER_LABELS } from './container-run-args';
import { markAlive } from './owner-mark';

/** Removes the containers of gridgate processes that no longer run; how many it removed. */
export async function sweepContainers(engine: ContainerEngine): Promise<number> {
  const owned = await engine.list(CONTAINER_LABELS.owner);
  const orphaned = owned.filter(({ labels }) => !markAlive(labels[CONTAINER_LABELS.owner] ?? ''));
  await Promise.all(orphaned.map(({ id }) => engine.remove(id)));
  return orphaned.length;
}
