/**
 * Reads the config file named by --config or GRIDGATE_CONFIG (or none), what a deployment lays over it
 * (GRIDGATE_DEPLOYMENT), the signing secret and, in a Lambda Web Function, where to listen
 * (AWS_LAMBDA_HTTP_ENDPOINT); the Node server's only reader of process.env.
 */
import { dirname, resolve } from 'node:path';
import { fingerprintSync } from '../adapters/fs/file-fingerprint';
import { type Config, ConfigError, parseConfig } from '../core/config';
import type { Logger } from '../core/ports';
import { POOL_KINDS, prepareForPools, undeployedSettings } from '../pools';
import { readConfigFile } from './config-file';
import { withDeployment } from './deployed-config';
import { signingSecret } from './signing-secret';

export interface RuntimeConfig {
  config: Config;
  /** Where the config came from, for logs. */
  source: string;
  /** The config file, watched for changes; undefined when the built-in defaults serve. */
  path: string | undefined;
  /** The file's stat fingerprint taken before it was read, so a change made meanwhile still reloads. */
  fingerprint: string | undefined;
  secret: Buffer;
  /** GRIDGATE_DEPLOYMENT's text, laid over the file at every reload too. */
  deployment: string | undefined;
  /** Running as a Lambda Web Function: no WebSockets there, and metrics go to CloudWatch as EMF. */
  webFunction: boolean;
}

export async function loadConfig(
  argv: string[],
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<RuntimeConfig> {
  const path = configPath(argv) ?? env.GRIDGATE_CONFIG;
  const fingerprint = path === undefined ? undefined : fingerprintSync(path);
  const deployment = env.GRIDGATE_DEPLOYMENT || undefined;
  const read = await readGridConfig(path, logger, { deployment });
  const endpoint = webFunctionEndpoint(env);
  const config = endpoint ? { ...read, ...endpoint } : read;
  // Routers that share a store serve each other's sessions, so they must share the key too.
  const shared = config.store.kind !== 'memory' || endpoint !== undefined;
  const secret = await signingSecret(env, { fallback: shared ? 'none' : 'random' });
  const source = path ?? 'built-in defaults';
  return { config, source, path, fingerprint, secret, deployment, webFunction: endpoint !== undefined };
}

/** Where a Lambda Web Function must listen: AWS_LAMBDA_HTTP_ENDPOINT ("host:port"), which the runtime sets. */
function webFunctionEndpoint(env: NodeJS.ProcessEnv): { host: string; port: number } | undefined {
  const endpoint = env.AWS_LAMBDA_HTTP_ENDPOINT;
  if (!endpoint) return undefined;
  const match = /^(.*):(\d{1,5})$/.exec(endpoint);
  if (!match) throw new ConfigError('AWS_LAMBDA_HTTP_ENDPOINT', [`must be "host:port", not "${endpoint}"`]);
  return { host: (match[1] as string).replace(/^\[(.*)\]$/, '$1'), port: Number(match[2]) };
}

/**
 * The config in `path` (none: the built-in defaults), validated, with its local browsers in place; at
 * start-up and on every reload. Throws ConfigError listing every problem, or Error when a browser is missing.
 */
export async function readGridConfig(
  path: string | undefined,
  logger: Logger,
  options: { deployment?: string } = {},
): Promise<Config> {
  const file = path ? readConfigFile(path) : {};
  const raw = withDeployment(file, options.deployment);
  const source = path ?? 'built-in defaults';
  const usesDefaultCatalog = typeof raw === 'object' && raw !== null && !('pools' in raw);
  // The built-in catalog is named after the installed Chromium's version, so Chromium comes first.
  const builtIn = Object.values(POOL_KINDS).find((kind) => kind.builtInCatalog)?.builtInCatalog;
  if (usesDefaultCatalog) await builtIn?.prepare(logger);
  const builtInBrowserVersion = usesDefaultCatalog ? ((await builtIn?.version()) ?? 'stable') : 'stable';
  const parsed = parseConfig(raw, { builtInBrowserVersion }, source);
  // A relative usersFile sits next to the config file, whichever directory the server starts in.
  const config =
    path && parsed.usersFile ? { ...parsed, usersFile: resolve(dirname(path), parsed.usersFile) } : parsed;
  const incomplete = undeployedSettings(config);
  if (incomplete.length > 0) throw new ConfigError(source, incomplete);
  await prepareForPools(config, logger);
  return config;
}

function configPath(argv: string[]): string | undefined {
  const index = argv.findIndex((arg) => arg === '--config' || arg.startsWith('--config='));
  if (index < 0) return undefined;
  const arg = argv[index] as string;
  return arg.includes('=') ? arg.slice('--config='.length) : argv[index + 1];
}
