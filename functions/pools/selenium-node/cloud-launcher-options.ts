/** What the ECS and EKS launchers share: how they report, tell time, wait, and probe a browser's driver. */
import type { Dispatcher } from 'undici';
import { realSleep, type Sleep } from '../../adapters/aws/retry-pacing';
import { type Clock, type Logger, type Metrics, noMetrics, systemClock } from '../../core/ports';

export interface CloudLauncherOptions {
  /** The HTTP client for /status checks (default: undici's global one). */
  agent?: Dispatcher;
  logger?: Logger;
  metrics?: Metrics;
  clock?: Clock;
  /** Injected so tests need no wall-clock waits. */
  sleep?: Sleep;
  /** In [0, 1), for backoff jitter. */
  random?: () => number;
  /** Longest a running browser's WebDriver endpoint may take to answer ready (default 60 s). */
  driverReadyTimeoutMs?: number;
}

/** The options' metrics, clock, sleep and jitter, or the real ones. */
export function launcherDefaults(options: CloudLauncherOptions) {
  return {
    metrics: options.metrics ?? noMetrics,
    clock: options.clock ?? systemClock,
    sleep: options.sleep ?? realSleep,
    random: options.random ?? Math.random,
  };
}
