/**
 * The end of a cloud browser's cold start, the same for an ECS task and an EKS pod once the platform has
 * given it an IP: its address checked against the pool's networks, its node's /status awaited, and the
 * launch and driver stages timed. Free of any AWS SDK, so each launcher's bundle carries only its own.
 */
import { addressAllowed } from '../../core/browser-network';
import type { EcsPoolConfig, EksPoolConfig } from '../../core/config';
import { type CloudLauncherOptions, launcherDefaults } from './cloud-launcher-options';
import { DriverNotReady, waitForDriver } from './driver-ready';

export interface CloudBrowser {
  pool: EcsPoolConfig | EksPoolConfig;
  /** The private IPv4 address the platform gave the task or pod. */
  ip: string;
  /** When the launch began (clock ms): the launch stage runs from here until now. */
  startedAt: number;
  signal: AbortSignal;
}

/** How a launcher names its browsers and its failures, so each keeps its own error class and stages. */
export interface CloudBrowserFailures {
  /** What the browser runs in, as messages call it. */
  unit: 'task' | 'pod';
  /** The failure for an address outside pools.<name>.networks; `details` is the message after the stage. */
  outsideNetworks: (details: string) => Error;
  /** The failure for a node whose /status never answered ready in time; `details` says what it answered. */
  driverNotReady: (details: string) => Error;
}

const DEFAULT_DRIVER_READY_TIMEOUT_MS = 60_000;

/**
 * Resolves with the browser's host:port once its node takes sessions; rejects with the launcher's failure.
 * Reads the launcher's own options, so it reports, waits and tells time as the launcher does.
 */
export async function cloudBrowserReady(
  options: CloudLauncherOptions,
  browser: CloudBrowser,
  failures: CloudBrowserFailures,
): Promise<string> {
  const { pool, signal } = browser;
  const { metrics, clock, sleep } = launcherDefaults(options);
  const running = clock.now();
  metrics.timing('LaunchStageLatency', running - browser.startedAt, { pool: pool.name, stage: 'launch' });
  const address = `${browser.ip}:${pool.port}`;
  // The address goes into the session ID, which is refused later if it lies outside the pool's networks.
  if (!addressAllowed(pool, address)) {
    throw failures.outsideNetworks(
      `the ${failures.unit}'s address ${address} is outside pools.${pool.name}.networks`,
    );
  }
  try {
    await waitForDriver({
      address,
      signal,
      timeoutMs: options.driverReadyTimeoutMs ?? DEFAULT_DRIVER_READY_TIMEOUT_MS,
      agent: options.agent,
      sleep,
      clock,
    });
  } catch (error) {
    // An abort's reason passes as is.
    if (error instanceof DriverNotReady) throw failures.driverNotReady(error.details);
    throw error;
  }
  metrics.timing('LaunchStageLatency', clock.now() - running, { pool: pool.name, stage: 'driver' });
  return address;
}
