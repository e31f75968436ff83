/**
 * Where a session's video and log live: the artifact source of its pool's kind (GridDeps.artifacts). Local
 * pools keep them on the disk of the machine that ran the browser; a kind without a source has none to give.
 */
import type { ArtifactSource } from './artifact-ports';
import type { PoolConfig } from './config';
import { type GridDeps, poolsNamed } from './grid-deps';

/** The source for sessions of this pool (by name, a retired pool included), or undefined. */
export function artifactSourceFor(deps: GridDeps, poolName: string): ArtifactSource | undefined {
  const pool = poolsNamed(deps, poolName)[0];
  return pool ? artifactSourceOfKind(deps, pool.kind) : undefined;
}

export function artifactSourceOfKind(deps: GridDeps, kind: PoolConfig['kind']): ArtifactSource | undefined {
  return deps.artifacts?.[kind];
}

/** Every distinct source in use, for the status page's list and /status's disk use. */
export function artifactSources(deps: GridDeps): ArtifactSource[] {
  return [...new Set(Object.values(deps.artifacts ?? {}))];
}
