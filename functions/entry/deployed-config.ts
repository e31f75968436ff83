/**
 * The config of gridgate's functions on AWS: the file bundled with them (GRIDGATE_CONFIG) with what the
 * stack knows laid over it (GRIDGATE_DEPLOYMENT), checked for what runs there: no local browsers,
 * quotas shared through DynamoDB, every ecs pool complete.
 */
import { dirname, resolve } from 'node:path';
import { type Config, ConfigError, parseConfig } from '../core/config';
import { applyDeployment, parseDeployment } from '../core/deployment';
import { checkEcsPool } from '../pools/ecs/ecs-pool-check';
import { checkEksPool } from '../pools/eks/eks-pool-check';
import { readConfigFile } from './config-file';

/** The config file's content with GRIDGATE_DEPLOYMENT's text (when set) laid over it, not yet validated. */
export function withDeployment(raw: unknown, deployment: string | undefined): unknown {
  return deployment ? applyDeployment(raw, parseDeployment(deployment)) : raw;
}

/** What the cloud pools (ecs, eks) still lack to start browsers, each naming its key. */
export function undeployedSettings(config: Config): string[] {
  return Object.values(config.pools).flatMap((pool) =>
    pool.kind === 'ecs' ? checkEcsPool(pool) : pool.kind === 'eks' ? checkEksPool(pool) : [],
  );
}

/**
 * Where the stack keeps ecs sessions' recordings, from GRIDGATE_DEPLOYMENT's text: the bucket of their
 * videos, when some pool records, and the log group of their browsers' logs. The router Lambda and the
 * Node server's heads (service and Web Function front doors) are given the same text.
 */
export function ecsRecordingPlaces(deployment: string | undefined): { bucket?: string; logGroup?: string } {
  if (!deployment) return {};
  const { recordingsBucket, browserLogGroup } = parseDeployment(deployment);
  return {
    ...(recordingsBucket ? { bucket: recordingsBucket } : {}),
    ...(browserLogGroup ? { logGroup: browserLogGroup } : {}),
  };
}

export function readDeployedConfig(env: NodeJS.ProcessEnv): Config {
  const path = env.GRIDGATE_CONFIG;
  if (!path)
    throw new ConfigError('GRIDGATE_CONFIG', ['must name the config file bundled with the function']);
  // No local pools run on AWS, so the built-in catalog's Chromium version is never needed.
  const config = parseConfig(
    withDeployment(readConfigFile(path), env.GRIDGATE_DEPLOYMENT),
    { localBrowserVersion: 'stable' },
    path,
  );
  const problems: string[] = [];
  for (const pool of Object.values(config.pools)) {
    if (pool.kind === 'local')
      problems.push(`pools.${pool.name}: local pools cannot run in Lambda (no Chromium there)`);
    if (pool.kind === 'container')
      problems.push(`pools.${pool.name}: container pools cannot run in Lambda (no podman or Docker there)`);
  }
  problems.push(...undeployedSettings(config));
  if (config.store.kind !== 'dynamodb') {
    problems.push('store: functions on AWS share quotas only through "kind": "dynamodb"');
  }
  if (problems.length > 0) throw new ConfigError(path, problems);
  // A relative usersFile is bundled next to the config file.
  return config.usersFile ? { ...config, usersFile: resolve(dirname(path), config.usersFile) } : config;
}
