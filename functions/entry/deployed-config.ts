/**
 * The config of gridgate's functions on AWS: the file bundled with them (GRIDGATE_CONFIG) with what the
 * stack knows laid over it (GRIDGATE_DEPLOYMENT), checked for what runs there: no local browsers, no
 * kubeconfig, quotas shared through DynamoDB, every cloud pool complete.
 */
import { dirname, resolve } from 'node:path';
import { type Config, ConfigError, parseConfig } from '../core/config';
import { configTraitsOf } from '../core/config-traits-by-kind';
import { applyDeployment, parseDeployment } from '../core/deployment';
import { undeployedSettings } from '../pools';
import { readConfigFile } from './config-file';

/** The config file's content with GRIDGATE_DEPLOYMENT's text (when set) laid over it, not yet validated. */
export function withDeployment(raw: unknown, deployment: string | undefined): unknown {
  return deployment ? applyDeployment(raw, parseDeployment(deployment)) : raw;
}

export function readDeployedConfig(env: NodeJS.ProcessEnv): Config {
  const path = env.GRIDGATE_CONFIG;
  if (!path)
    throw new ConfigError('GRIDGATE_CONFIG', ['must name the config file bundled with the function']);
  // No local pools run on AWS, so the built-in catalog's Chromium version is never needed.
  const config = parseConfig(
    withDeployment(readConfigFile(path), env.GRIDGATE_DEPLOYMENT),
    { builtInBrowserVersion: 'stable' },
    path,
  );
  const problems = Object.values(config.pools).flatMap((pool) => configTraitsOf(pool).notOnAws?.(pool) ?? []);
  problems.push(...undeployedSettings(config));
  if (config.store.kind !== 'dynamodb') {
    problems.push('store: functions on AWS share quotas only through "kind": "dynamodb"');
  }
  if (problems.length > 0) throw new ConfigError(path, problems);
  // A relative usersFile is bundled next to the config file.
  return config.usersFile ? { ...config, usersFile: resolve(dirname(path), config.usersFile) } : config;
}
