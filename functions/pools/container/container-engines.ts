/**
 * Which container engine runs a pool's containers: the one the pool names, else podman when this machine has
 * it, else Docker. Looked up on the PATH once, when a container pool is first used.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ContainerPoolConfig } from '../../core/config';
import { ContainerEngine, type EngineName } from './container-engine';

function onPath(name: string, path: string): boolean {
  return path.split(delimiter).some((folder) => {
    try {
      accessSync(join(folder, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The engine this machine has (podman first), or undefined when it has neither. */
export function installedEngine(path = process.env.PATH ?? ''): EngineName | undefined {
  return (['podman', 'docker'] as const).find((name) => onPath(name, path));
}

/** One engine client per engine name, all with this environment. */
export function containerEngines(
  env: NodeJS.ProcessEnv = process.env,
): (pool: ContainerPoolConfig) => ContainerEngine {
  const engines = new Map<EngineName, ContainerEngine>();
  let installed: EngineName | undefined;
  return (pool) => {
    installed ??= installedEngine(env.PATH);
    // With neither installed, podman's call fails with a message that says so ("spawn podman ENOENT").
    const name = pool.engine ?? installed ?? 'podman';
    let engine = engines.get(name);
    if (!engine) {
      engine = new ContainerEngine(name, env);
      engines.set(name, engine);
    }
    return engine;
  };
}
