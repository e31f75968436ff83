/**
 * gridgate's EKS pods as a browser fleet for the cleanup pass: one place per cluster and namespace the
 * config's eks pools use, pods listed by the label gridgate=true, deleted with their own grace period. A
 * session's pod (one that timed out, or was left behind) has its browser log kept first, as the launcher's
 * stop does (pod-log-archive.ts).
 */
import type { BrowserFleet, FleetBrowser, FleetPlace } from '../../core/browser-fleet';
import type { Config } from '../../core/config';
import type { StopReason, TaskFacts, TaskFate, WarmStopReason } from '../../core/orphan-decisions';
import { type EksPodApi, KubernetesApiError } from './eks-pod-api';
import { GRID_SELECTOR, POD_ANNOTATIONS, POD_LABELS, type Pod } from './eks-pod-spec';
import { type DeployedEksPool, isDeployedEks } from './eks-pool-check';
import type { PodLogToKeep } from './pod-log-archive';

/** A cluster's namespace, with a pool that says how to reach its API, and each of its pools by name. */
export interface PodPlace extends FleetPlace {
  pool: DeployedEksPool;
  byName: ReadonlyMap<string, DeployedEksPool>;
}

export class EksFleet implements BrowserFleet<FleetBrowser, PodPlace> {
  /**
   * @param pods the pod API of a pool's cluster (eksPodApis).
   * @param keepLog copies a session's pod's browser log to its pool's bucket; bounded, never throwing.
   */
  constructor(
    private readonly pods: (pool: DeployedEksPool) => EksPodApi,
    private readonly keepLog: (toKeep: PodLogToKeep) => Promise<void>,
  ) {}

  places(config: Config): PodPlace[] {
    return [...podPlaces(config)].map(([name, { pool, pools }]) => ({
      name,
      pool,
      pools: new Set(pools.keys()),
      byName: pools,
    }));
  }

  async list(place: PodPlace): Promise<FleetBrowser[]> {
    const pods = await this.pods(place.pool).list(place.pool.namespace, GRID_SELECTOR);
    return (
      pods
        // Pods being deleted are on their way out already.
        .filter((pod) => !pod.metadata?.deletionTimestamp)
        .map((pod) => ({
          ...podFacts(pod),
          id: pod.metadata.name,
          pool: pod.metadata?.labels?.[POD_LABELS.pool] || undefined,
          // A pod whose browser exited (restartPolicy Never) stays listed as Succeeded or Failed.
          alive: !isFinished(pod),
        }))
    );
  }

  /** A pod the listing did not show alive has exited or is gone: Kubernetes keeps no record of which. */
  async fates(_place: PodPlace, ids: string[]): Promise<Map<string, TaskFate>> {
    return new Map(ids.map((id) => [id, { state: 'missing' }]));
  }

  async stop(
    place: PodPlace,
    id: string,
    _reason: StopReason | WarmStopReason,
    session: { key: string; pool: string | undefined } | undefined,
  ): Promise<void> {
    const api = this.pods(place.pool);
    const pool = session?.pool === undefined ? undefined : place.byName.get(session.pool);
    // The log goes with the pod; keepLog never throws, so the delete always follows.
    if (session && pool) await this.keepLog({ api, pool, pod: id, sessionKey: session.key });
    // False when it was already gone: what the delete was for has happened.
    await api.delete(place.pool.namespace, id);
  }

  isThrottled(error: unknown): boolean {
    return error instanceof KubernetesApiError && error.transient;
  }
}

/** The eks pools grouped by where their pods live (one list call per cluster and namespace), by name. */
export function podPlaces(
  config: Config,
): Map<string, { pool: DeployedEksPool; pools: Map<string, DeployedEksPool> }> {
  const places = new Map<string, { pool: DeployedEksPool; pools: Map<string, DeployedEksPool> }>();
  for (const pool of Object.values(config.pools)) {
    if (pool.kind !== 'eks' || !isDeployedEks(pool)) continue;
    const place = `${pool.cluster}/${pool.namespace}`;
    const known = places.get(place);
    if (known) known.pools.set(pool.name, pool);
    else places.set(place, { pool, pools: new Map([[pool.name, pool]]) });
  }
  return places;
}

/** What the cleanup rules need of a pod: when its launch began and whose session it is. */
export function podFacts(pod: Pod): TaskFacts {
  const annotated = Number(pod.metadata?.annotations?.[POD_ANNOTATIONS.createdAt]);
  const created = Date.parse(pod.metadata?.creationTimestamp ?? '');
  return {
    launchedAt:
      Number.isFinite(annotated) && annotated > 0 ? annotated : Number.isNaN(created) ? undefined : created,
    sessionKey: pod.metadata?.labels?.[POD_LABELS.session] || undefined,
  };
}

function isFinished(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}
