/**
 * eks sessions' logs (`GET /logs/{id}.log`). While the session runs: its pod's browser container log, read
 * from the Kubernetes API (`pods/{name}/log`, the container named since a recorder may run beside it, at most
 * POD_LOG_BYTES from its start, not followed, a longer one cut and saying so: pod-log-bound.ts), answered whole with its length. Once the session has ended its
 * pod is deleted and its log with it, so the launcher keeps a copy at the stop (pod-log-archive.ts) in the
 * recordings bucket, served here by a presigned redirect as videos are; a pool without a bucket (no recorder)
 * has a log only while its session runs. Kubernetes errors are translated here: no pod is "no log",
 * throttling and the server's own trouble a 503, anything else a 502.
 *
 * People and log followers ask for the same running session's log again and again, and every read is a call
 * on the cluster's API server (which API priority and fairness throttles for everyone, the launcher too): what
 * one lookup found is shared by everyone asking for that session's log within LOG_KEEP_MS.
 */
import { Readable } from 'node:stream';
import type {
  Artifact,
  ArtifactAsk,
  ArtifactKind,
  ArtifactSession,
  ArtifactSource,
} from '../../core/artifact-ports';
import type { PoolConfig } from '../../core/config';
import { WebDriverError } from '../../core/errors';
import { RecentResults } from '../selenium-node/recent-results';
import { type EksPodApi, KubernetesApiError } from './eks-pod-api';
import { CONTAINER, POD_NAME } from './eks-pod-spec';
import { type DeployedEksPool, isDeployedEks } from './eks-pool-check';
import { POD_LOG_BYTES, readLimit, withinBound } from './pod-log-bound';

/** How long one lookup of a session's log serves everyone asking for it (a follower polling each second). */
export const LOG_KEEP_MS = 2000;

/** What one lookup found: the copy kept in the bucket, the running pod's log, or neither. */
type Found = { kind: 'kept'; artifact: Artifact } | { kind: 'live'; text: Buffer } | undefined;

export interface EksPodLogsOptions {
  /** The pool a session ran in, by its ID's claims. */
  poolOf: (session: ArtifactSession) => PoolConfig | undefined;
  /** The pod API of the pool's cluster (by its auth: EKS tokens or a kubeconfig). */
  podApi: (pool: DeployedEksPool) => Promise<EksPodApi>;
  /** Where the pool's ended sessions' logs were kept (its recorder's bucket), or undefined for none. */
  kept: (pool: DeployedEksPool) => Promise<ArtifactSource | undefined>;
  clock?: { now(): number };
}

export class EksPodLogs implements ArtifactSource {
  private readonly recent: RecentResults<Found>;

  constructor(private readonly options: EksPodLogsOptions) {
    this.recent = new RecentResults(LOG_KEEP_MS, options.clock ?? Date);
  }

  async find(
    session: ArtifactSession,
    kind: ArtifactKind | 'screenshot',
    ask: ArtifactAsk = { method: 'GET' },
  ): Promise<Artifact | undefined> {
    if (kind !== 'log') return undefined;
    const pool = this.options.poolOf(session);
    if (pool?.kind !== 'eks' || !isDeployedEks(pool) || !POD_NAME.test(session.handle)) return undefined;
    const found = await this.recent.get(
      `${pool.name}\0${session.key}\0${session.handle}`,
      () => this.lookUp(pool, session),
      () => true,
    );
    if (found?.kind !== 'live') return found?.artifact;
    const text = found.text;
    return {
      kind: 'stream',
      status: 200,
      headers: {
        'content-type': 'text/plain; charset=utf-8',
        'content-length': String(text.length),
        'content-disposition': `inline; filename="${session.key}.log"`,
        'x-content-type-options': 'nosniff',
        // Whose it is was checked for this request; and a running session's log grows.
        'cache-control': 'private, no-cache',
      },
      body: Readable.from(ask.method === 'HEAD' ? [] : [text]),
    };
  }

  private async lookUp(pool: DeployedEksPool, session: ArtifactSession): Promise<Found> {
    // An ended session's copy first: its pod is gone (or going), and the copy is the whole of what it wrote.
    const kept = await (await this.options.kept(pool))?.find(session, 'log');
    if (kept) return { kind: 'kept', artifact: kept };
    const text = await this.live(pool, session.handle);
    return text === undefined ? undefined : { kind: 'live', text };
  }

  /** The browser container's log as far as it is written; undefined when the pod is gone. */
  private async live(pool: DeployedEksPool, pod: string): Promise<Buffer | undefined> {
    try {
      const api = await this.options.podApi(pool);
      const text = await api.log(pool.namespace, pod, {
        container: CONTAINER,
        limitBytes: readLimit(POD_LOG_BYTES),
      });
      return text && withinBound(text, POD_LOG_BYTES);
    } catch (error) {
      throw unreadable(error);
    }
  }
}

function unreadable(error: unknown): WebDriverError {
  const busy = !(error instanceof KubernetesApiError) || error.transient;
  const why = busy ? 'is busy or did not answer; try again shortly' : 'refused to give the log';
  return new WebDriverError('unknown error', `the Kubernetes API ${why}: ${String(error)}`, {
    status: busy ? 503 : 502,
    cause: error,
    ...(busy ? { headers: { 'retry-after': '5' } } : {}),
  });
}
