/** Idle timeout, maximum age and queue wait of a session: the config's, or shorter ones the client asks for. */
import { isObject } from './capabilities';
import type { Config } from './config';
import { formatDuration, parseDuration } from './duration';
import { invalidArgument } from './errors';

export const GRIDGATE_OPTIONS = 'gridgate:options';

export interface SessionLimits {
  idleTimeoutMs: number;
  maxAgeMs: number;
}

/** Reads `gridgate:options` {idleTimeout, maxAge}; longer than the config allows is an error, not a clamp. */
export function sessionLimits(config: Config, options: unknown): SessionLimits {
  const limits = { idleTimeoutMs: config.timeouts.idle, maxAgeMs: config.timeouts.maxAge };
  if (options === undefined) return limits;
  if (!isObject(options)) throw invalidArgument(`${GRIDGATE_OPTIONS} must be a JSON object`);
  const asked = {
    idleTimeoutMs: readDuration(options, 'idleTimeout', config.timeouts.idle),
    maxAgeMs: readDuration(options, 'maxAge', config.timeouts.maxAge),
  };
  return {
    idleTimeoutMs: asked.idleTimeoutMs ?? limits.idleTimeoutMs,
    maxAgeMs: asked.maxAgeMs ?? limits.maxAgeMs,
  };
}

/**
 * Reads `gridgate:options.queueTimeout`: how long the request may wait for a free slot. "0s" means
 * "do not wait"; longer than `timeouts.queue` is an error, as for the session limits.
 */
export function queueTimeout(config: Config, options: unknown): number {
  if (options === undefined) return config.timeouts.queue;
  if (!isObject(options)) throw invalidArgument(`${GRIDGATE_OPTIONS} must be a JSON object`);
  return (
    readDuration(options, 'queueTimeout', config.timeouts.queue, { zero: true }) ?? config.timeouts.queue
  );
}

function readDuration(
  options: Record<string, unknown>,
  key: string,
  allowed: number,
  { zero = false } = {},
): number | undefined {
  const value = options[key];
  if (value === undefined) return undefined;
  const ms = typeof value === 'string' ? parseDuration(value) : undefined;
  if (ms === undefined || ms < 0 || (ms === 0 && !zero)) {
    throw invalidArgument(`${GRIDGATE_OPTIONS}.${key} must be a duration such as "90s" or "5m"`);
  }
  if (ms > allowed) {
    throw invalidArgument(
      `${GRIDGATE_OPTIONS}.${key} ${value} is longer than this grid allows (${formatDuration(allowed)})`,
    );
  }
  return ms;
}
