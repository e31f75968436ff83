/** Reads the config file named by --config or GRIDGATE_CONFIG (or none) and the signing secret; the only reader of process.env. */
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { chromiumVersion, ensureChromium } from '../adapters/local/ensure-chromium';
import { fingerprintSync } from '../adapters/node/file-fingerprint';
import { type Config, ConfigError, parseConfig } from '../core/config';
import type { Logger } from '../core/ports';
import { readConfigFile } from './config-file';

export interface RuntimeConfig {
  config: Config;
  /** Where the config came from, for logs. */
  source: string;
  /** The config file, watched for changes; undefined when the built-in defaults serve. */
  path: string | undefined;
  /** The file's stat fingerprint taken before it was read, so a change made meanwhile still reloads. */
  fingerprint: string | undefined;
  secret: Buffer;
}

const DEFAULT_LOCAL = { chromium: '/usr/bin/chromium', chromedriver: '/usr/bin/chromedriver' };

export async function loadConfig(
  argv: string[],
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<RuntimeConfig> {
  const path = configPath(argv) ?? env.GRIDGATE_CONFIG;
  const fingerprint = path === undefined ? undefined : fingerprintSync(path);
  const config = await readGridConfig(path, logger);
  return { config, source: path ?? 'built-in defaults', path, fingerprint, secret: signingSecret(env) };
}

/**
 * The config in `path` (none: the built-in defaults), validated, with its local browsers in place; at
 * start-up and on every reload. Throws ConfigError listing every problem, or Error when a browser is missing.
 */
export async function readGridConfig(path: string | undefined, logger: Logger): Promise<Config> {
  const raw = path ? readConfigFile(path) : {};
  const source = path ?? 'built-in defaults';
  const usesDefaultCatalog = typeof raw === 'object' && raw !== null && !('pools' in raw);
  // The built-in catalog is named after the installed Chromium's version, so Chromium comes first.
  if (usesDefaultCatalog) await ensureChromium([DEFAULT_LOCAL], logger);
  const localBrowserVersion = usesDefaultCatalog
    ? ((await chromiumVersion(DEFAULT_LOCAL.chromium)) ?? 'stable')
    : 'stable';
  const parsed = parseConfig(raw, { localBrowserVersion }, source);
  // A relative usersFile sits next to the config file, whichever directory the server starts in.
  const config =
    path && parsed.usersFile ? { ...parsed, usersFile: resolve(dirname(path), parsed.usersFile) } : parsed;
  const localPools = Object.values(config.pools).flatMap((pool) => (pool.kind === 'local' ? [pool] : []));
  await ensureChromium(localPools, logger);
  return config;
}

function configPath(argv: string[]): string | undefined {
  const index = argv.findIndex((arg) => arg === '--config' || arg.startsWith('--config='));
  if (index < 0) return undefined;
  const arg = argv[index] as string;
  return arg.includes('=') ? arg.slice('--config='.length) : argv[index + 1];
}

/** GRIDGATE_SECRET signs session IDs; without it a random per-process key does (IDs die with the process). */
function signingSecret(env: NodeJS.ProcessEnv): Buffer {
  const secret = env.GRIDGATE_SECRET;
  if (secret === undefined || secret === '') return randomBytes(32);
  if (Buffer.byteLength(secret) < 32)
    throw new ConfigError('GRIDGATE_SECRET', ['must be at least 32 characters long']);
  return Buffer.from(secret, 'utf8');
}
