/**
 * Launcher for eks pools: one pod per session, created through the Kubernetes API, read with capped
 * backoff until Running with an IP and Ready, then asked for a ready WebDriver /status; deleted on every
 * failure path and when the session ends. The handle is the pod name; its namespace comes from the pool.
 * API calls per session are bounded by the deadline, whatever the number of sessions (no list, no watch
 * of the whole namespace).
 */

import { type Backoff, backoffMs, NEVER_ABORTED, type Sleep } from '../../adapters/aws/retry-pacing';
import type { EksPoolConfig } from '../../core/config';
import type {
  Clock,
  LaunchedBrowser,
  Launcher,
  LaunchRequest,
  Metrics,
  StopContext,
  TaskBilling,
} from '../../core/ports';
import { type CloudBrowserFailures, cloudBrowserReady } from '../selenium-node/cloud-browser-ready';
import { type CloudLauncherOptions, launcherDefaults } from '../selenium-node/cloud-launcher-options';
import { recorderNodeCapabilities } from '../selenium-node/node-capabilities';
import { fargatePodSize } from './eks-fargate-size';
import { EksLaunchFailure } from './eks-launch-stage';
import { type EksPodApi, KubernetesApiError } from './eks-pod-api';
import { CONTAINER, POD_NAME, type Pod, podManifest, podNameFor } from './eks-pod-spec';
import { podState } from './eks-pod-state';
import { checkEksPool, type DeployedEksPool, isDeployedEks } from './eks-pool-check';
import type { PodLogToKeep } from './pod-log-archive';

export { EksLaunchFailure, type EksLaunchStage } from './eks-launch-stage';
export { checkEksPool } from './eks-pool-check';

export interface EksLauncherOptions extends CloudLauncherOptions {
  /** The pod API of a pool's cluster (endpoint, token, CA); the entry makes one per cluster. */
  podApi: (pool: DeployedEksPool) => EksPodApi;
  /** Longest a pod may take to be scheduled, pull its image and become Ready (default 90 s). */
  podReadyTimeoutMs?: number;
  /**
   * Copies the pod's browser log to its pool's bucket before a session's pod is deleted (pod-log-archive.ts,
   * loaded by the entry); bounded in time and never throwing. None: logs are not kept past the pod.
   */
  keepLog?: (toKeep: PodLogToKeep) => Promise<void>;
}

// One pod read per wait, 0.5 s growing to 3 s: at most ~45 reads in 90 s, per session.
const READ_BACKOFF: Backoff = { firstMs: 500, maxMs: 3000, factor: 1.5 };
const CALL_TRIES = 4;
const CALL_BACKOFF: Backoff = { firstMs: 500, maxMs: 4000, factor: 2 };
// A Ready pod whose address is outside the pool's networks has not become a usable browser.
const POD_FAILURES: CloudBrowserFailures = {
  unit: 'pod',
  outsideNetworks: (details) => new EksLaunchFailure('not ready', details),
  driverNotReady: (details) => new EksLaunchFailure('driver', details),
};

export class EksLauncher implements Launcher<EksPoolConfig> {
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly metrics: Metrics;

  constructor(private readonly options: EksLauncherOptions) {
    ({
      clock: this.clock,
      sleep: this.sleep,
      random: this.random,
      metrics: this.metrics,
    } = launcherDefaults(options));
  }

  async start(request: LaunchRequest<EksPoolConfig>): Promise<LaunchedBrowser> {
    const { pool, signal } = request;
    if (!isDeployedEks(pool)) throw new EksLaunchFailure('config', checkEksPool(pool).join('; '));
    signal.throwIfAborted();
    const api = this.options.podApi(pool);
    const started = this.clock.now();
    const name = podNameFor(request.key);
    try {
      await this.create(api, pool, podManifest(pool, request, name, started), signal);
      request.onStage?.('launch');
      const ip = await this.waitForPod(api, pool, name, signal, request.onStage);
      const address = await cloudBrowserReady(
        this.options,
        { pool, ip, startedAt: started, signal },
        POD_FAILURES,
      );
      // Every pod is a start of its own (the node may have the image already): counted as cold.
      this.metrics.timing('BrowserStartLatency', this.clock.now() - started, {
        pool: pool.name,
        start: 'cold',
      });
      const billing = pool.fargate ? fargateBilling(pool, started) : undefined;
      return {
        address,
        handle: name,
        capabilities: recorderNodeCapabilities(pool, request),
        ...(billing ? { billing } : {}),
      };
    } catch (error) {
      // Also after a failed create: a POST that timed out may still have made the pod.
      await this.deletePod(api, pool, name);
      throw error;
    }
  }

  /**
   * Keeps the pod's browser log (bounded; a failure is logged), then deletes the pod. Never throws: a pod
   * already gone is fine, anything else is logged for the cleanup to finish.
   */
  async stop(handle: string, { key, pool }: StopContext): Promise<void> {
    if (pool.kind !== 'eks' || !isDeployedEks(pool) || !POD_NAME.test(handle)) {
      this.options.logger?.log('BROWSER_STOP_FAILED', {
        handle,
        pool: pool.name,
        reason: 'a pod is deleted by its name and its deployed eks pool, and these are not',
      });
      return;
    }
    const api = this.options.podApi(pool);
    // The log goes with the pod: read it first. keepLog never throws, so the delete always follows.
    await this.options.keepLog?.({ api, pool, pod: handle, sessionKey: key });
    await this.deletePod(api, pool, handle);
  }

  /** POSTs the pod, retried while throttled; AlreadyExists on a retry means an earlier try made it. */
  private async create(
    api: EksPodApi,
    pool: DeployedEksPool,
    pod: unknown,
    signal: AbortSignal,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await api.create(pool.namespace, pod, signal);
        return;
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (error instanceof KubernetesApiError && error.reason === 'AlreadyExists' && attempt > 1) return;
        if (isTransient(error) && attempt < CALL_TRIES) {
          await this.sleep(backoffMs(CALL_BACKOFF, attempt - 1, this.random), signal);
          continue;
        }
        throw new EksLaunchFailure(
          'create',
          `creating the pod in namespace ${pool.namespace} failed: ${describe(error)}`,
          {
            cause: error,
          },
        );
      }
    }
  }

  /** Reads the pod until it is Running, has an IP and is Ready, and returns the IP. */
  private async waitForPod(
    api: EksPodApi,
    pool: DeployedEksPool,
    name: string,
    signal: AbortSignal,
    onStage?: LaunchRequest['onStage'],
  ): Promise<string> {
    const timeoutMs = this.options.podReadyTimeoutMs ?? 90_000;
    const deadline = this.clock.now() + timeoutMs;
    let last = { stage: 'not ready' as 'unschedulable' | 'not ready', why: 'not read yet' };
    for (let poll = 0; ; poll++) {
      await this.sleep(backoffMs(READ_BACKOFF, poll, this.random), signal);
      const pod = await this.read(api, pool.namespace, name, signal);
      if (pod === undefined)
        throw new EksLaunchFailure('not ready', `pod ${name} disappeared before it was ready`);
      if (pod !== 'transient') {
        const state = podState(pod);
        const stage = podStage(pod);
        if (stage) onStage?.(stage);
        if (state.state === 'ready') return state.ip;
        if (state.state === 'failed') throw new EksLaunchFailure(state.stage, `pod ${name}: ${state.why}`);
        last = state;
      }
      if (this.clock.now() >= deadline) {
        throw new EksLaunchFailure(
          last.stage,
          `pod ${name} was not ready within ${Math.round(timeoutMs / 1000)} s: ${last.why}`,
        );
      }
    }
  }

  private async read(api: EksPodApi, namespace: string, name: string, signal: AbortSignal) {
    try {
      return await api.read(namespace, name, signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (isTransient(error)) return 'transient' as const;
      throw new EksLaunchFailure('not ready', `reading pod ${name} failed: ${describe(error)}`, {
        cause: error,
      });
    }
  }

  /** DELETE, retried while throttled; never throws, since it runs on failure paths and at session end. */
  private async deletePod(api: EksPodApi, pool: DeployedEksPool, name: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await api.delete(pool.namespace, name);
        return;
      } catch (error) {
        if (isTransient(error) && attempt < CALL_TRIES) {
          await this.sleep(backoffMs(CALL_BACKOFF, attempt - 1, this.random), NEVER_ABORTED);
          continue;
        }
        // The scheduled cleanup finds the pod by its labels.
        this.options.logger?.log('BROWSER_STOP_FAILED', {
          pool: pool.name,
          handle: name,
          reason: describe(error),
        });
        return;
      }
    }
  }
}

/**
 * What a pod's status says for people watching the start: the image downloading (the kubelet reports
 * the container waiting in ContainerCreating while it pulls), or the container running and the WebDriver
 * endpoint coming up. Undefined while the pod waits for a node.
 */
function podStage(pod: Pod): 'pull' | 'driver' | undefined {
  if (pod?.status?.phase === 'Running') return 'driver';
  const container = (pod?.status?.containerStatuses ?? []).find((c: Pod) => c.name === CONTAINER);
  const reason = container?.state?.waiting?.reason;
  return reason === 'ContainerCreating' || reason === 'PodInitializing' ? 'pull' : undefined;
}

/** Throttled, the server's own trouble, or no answer at all (a network error or a timed-out call). */
function isTransient(error: unknown): boolean {
  return error instanceof KubernetesApiError ? error.transient : true;
}

function describe(error: unknown): string {
  return `${(error as Error).name}: ${(error as Error).message}`;
}

/**
 * A Fargate pod's billing: the size Fargate gives its requests, on-demand (EKS on Fargate has no Spot),
 * x86_64, from its creation (Fargate bills from the image pull, a little later: a slight overestimate).
 */
function fargateBilling(pool: DeployedEksPool, created: number): TaskBilling | undefined {
  const size = fargatePodSize(pool.cpu, pool.memory);
  return size && { billedFrom: created, capacity: 'on-demand', architecture: 'x86_64', ...size };
}
