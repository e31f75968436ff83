/**
 * The router heads' container image for the service front door: the repository's Dockerfile (the Node
 * server's production build) with the deployment's config file, and its users file, added under
 * /etc/gridgate. It is an image asset, so `cdk deploy` builds it with Docker; synthesis only stages its
 * build context (the files the Dockerfile copies, and the config) and needs no Docker.
 */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { BUILT_IN_CONFIG, bundledUsersFile, ROOT } from './grid-function';

/** Where the image keeps its config: the Dockerfile's GRIDGATE_CONFIG. */
export const HEAD_CONFIG_DIR = '/etc/gridgate';

/** What the Dockerfile copies from the repository. */
const CONTEXT_FILES = [
  'Dockerfile',
  '.dockerignore',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'functions',
  'scripts/server-build.mjs',
];
const CONFIG_CONTEXT_DIR = 'gridgate-config';

/**
 * A build context: the repository's files the Dockerfile needs, the config (as gridgate.json) and its
 * users file in gridgate-config/, and the Dockerfile with one step more that copies them in. Returns its
 * directory.
 */
export function stageHeadImageContext(configFile: string | undefined, usersFile: string | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), 'gridgate-head-image-'));
  // Synthesis copies the context into the cloud assembly; this copy is not needed after the process.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  for (const file of CONTEXT_FILES) cpSync(join(ROOT, file), join(dir, file), { recursive: true });
  const configDir = join(dir, CONFIG_CONTEXT_DIR);
  mkdirSync(configDir);
  const config = configFile ?? BUILT_IN_CONFIG;
  copyFileSync(config, join(configDir, 'gridgate.json'));
  for (const [from, to] of bundledUsersFile(config, usersFile)) {
    copyFileSync(from as string, join(configDir, to as string));
  }
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  writeFileSync(
    join(dir, 'Dockerfile'),
    `${dockerfile}\n# The deployment's config file (and users file), staged by infra/head-image.ts.\nCOPY ${CONFIG_CONTEXT_DIR}/ ${HEAD_CONFIG_DIR}/\n`,
  );
  return dir;
}

/** The head image as an asset. x86_64: Fargate Spot runs no arm64 tasks. */
export function headImage(configFile: string | undefined, usersFile: string | undefined): ContainerImage {
  return ContainerImage.fromAsset(stageHeadImageContext(configFile, usersFile), {
    platform: Platform.LINUX_AMD64,
  });
}
