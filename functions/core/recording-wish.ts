/**
 * Whether a new session is recorded (video, driver log) and what it is called, from the three ways clients
 * ask: Selenium Grid 4's `se:recordVideo` and `se:name`, Selenoid's `selenoid:options` {enableVideo, videoName,
 * enableLog, logName, name} (so its users change nothing) and gridgate's own `gridgate:options` {video, log};
 * over the pool's and the config's defaults. A client's explicit false wins over any default.
 * Selenium Grid 4 has no capability for the driver log; `selenoid:options.enableLog` and `gridgate:options.log` ask for it.
 * The console and network captures are asked as core/capture-ask.ts reads them.
 */

import { type Capabilities, isObject } from './capabilities';
import { type CaptureAsk, captureAsk } from './capture-ask';
import type { Config, PoolConfig } from './config';
import { invalidArgument } from './errors';
import { KEEP_POLICIES, type KeepPolicy } from './recording-keep';
import { GRIDGATE_OPTIONS } from './session-limits';

export const SELENOID_OPTIONS = 'selenoid:options';

export interface RecordingWish {
  video: boolean;
  log: boolean;
  /** Capture the browser's console as a text log (core/capture-ask.ts); absent: no. */
  console?: true;
  /** Capture the browser's network traffic as a HAR file; absent: no. */
  network?: true;
  /** Which ended sessions keep their video (core/recording-keep.ts); absent: all. */
  keep?: KeepPolicy;
  /** The test's name, shown and searched on the status page. */
  name?: string;
  /** The file name people download the video as (Selenoid's videoName), else `<session ID>.<format>`. */
  videoName?: string;
  /** The file name people download the log as (Selenoid's logName), else `<session ID>.log`. */
  logName?: string;
}

/** What the client asked, checked: undefined where it said nothing, so the pool's and config's defaults apply. */
export type RecordingAsk = Omit<RecordingWish, 'video' | 'log' | 'console' | 'network'> & {
  video?: boolean;
  log?: boolean;
} & CaptureAsk;

const NAME_LIMIT = 200;

/**
 * Reads the capabilities (gridgate:options given apart, as new-session takes it out) before anything starts;
 * a value of the wrong type is `invalid argument`.
 */
export function recordingAsk(capabilities: Capabilities, gridgateOptions: unknown): RecordingAsk {
  const selenoid = objectOption(capabilities[SELENOID_OPTIONS], SELENOID_OPTIONS);
  const ours = objectOption(gridgateOptions, GRIDGATE_OPTIONS);
  const video =
    flag(ours, 'video', GRIDGATE_OPTIONS) ??
    flag(selenoid, 'enableVideo', SELENOID_OPTIONS) ??
    flag(capabilities, 'se:recordVideo', '');
  const log = flag(ours, 'log', GRIDGATE_OPTIONS) ?? flag(selenoid, 'enableLog', SELENOID_OPTIONS);
  const name = text(capabilities, 'se:name', '') ?? text(selenoid, 'name', SELENOID_OPTIONS);
  const keep = keepPolicy(ours.keep);
  const videoName = fileName(selenoid, 'videoName');
  const logName = fileName(selenoid, 'logName');
  return {
    ...captureAsk(capabilities, gridgateOptions),
    ...(video !== undefined ? { video } : {}),
    ...(log !== undefined ? { log } : {}),
    ...(name ? { name } : {}),
    ...(keep ? { keep } : {}),
    ...(videoName ? { videoName } : {}),
    ...(logName ? { logName } : {}),
  };
}

/** What a session in this pool records: the client's answer, else the pool's, else the config's. */
export function recordingWish(config: Config, pool: PoolConfig, ask: RecordingAsk): RecordingWish {
  const { keep: _asked, console: _console, network: _network, ...rest } = ask;
  const wish: RecordingWish = {
    ...rest,
    video: ask.video ?? pool.video ?? config.recording.video,
    log: ask.log ?? pool.log ?? config.recording.log,
  };
  // Carried only when on, as keep: a wish without them captures nothing.
  if (ask.console ?? pool.console ?? config.recording.console) wish.console = true;
  if (ask.network ?? pool.network ?? config.recording.network) wish.network = true;
  // "all" is what a wish without a policy means: only "failed" is carried.
  return (ask.keep ?? pool.keep ?? config.recording.keep) === 'failed' ? { ...wish, keep: 'failed' } : wish;
}

function keepPolicy(value: unknown): KeepPolicy | undefined {
  if (value === undefined) return undefined;
  if (!KEEP_POLICIES.includes(value as KeepPolicy)) {
    throw invalidArgument(`${GRIDGATE_OPTIONS}.keep must be "all" or "failed", not ${JSON.stringify(value)}`);
  }
  return value as KeepPolicy;
}

function objectOption(value: unknown, where: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isObject(value)) throw invalidArgument(`${where} must be a JSON object`);
  return value;
}

const label = (where: string, key: string) => (where ? `${where}.${key}` : key);

function flag(options: Record<string, unknown>, key: string, where: string): boolean | undefined {
  const value = options[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw invalidArgument(`${label(where, key)} must be true or false`);
  return value;
}

function text(options: Record<string, unknown>, key: string, where: string): string | undefined {
  const value = options[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidArgument(`${label(where, key)} must be a string`);
  return value.slice(0, NAME_LIMIT);
}

// A name people save the file as: no path, nothing a Content-Disposition header could not carry.
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._ -]{0,199}$/;

function fileName(options: Record<string, unknown>, key: string): string | undefined {
  const value = text(options, key, SELENOID_OPTIONS);
  if (value === undefined) return undefined;
  if (!FILE_NAME.test(value))
    throw invalidArgument(
      `${SELENOID_OPTIONS}.${key} must be a file name of letters, digits, ".", "_", "-" and spaces`,
    );
  return value;
}
