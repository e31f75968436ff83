/** The `run` arguments of a container pool's session: its own namespace, loopback ports, limits, labels. */
import { describe, expect, it } from 'vitest';
import { addressAllowed } from '../../../functions/core/browser-network';
import type { ContainerPoolConfig } from '../../../functions/core/config';
import { containerRunArgs } from '../../../functions/pools/container/container-run-args';
import { configWithOnePool } from '../../support/one-pool-config';

function containerPool(settings: Record<string, unknown>): ContainerPoolConfig {
  const pool = configWithOnePool('boxes', {
    kind: 'container',
    image: 'selenium/standalone-chromium',
    ...settings,
  }).pools.boxes;
  if (pool?.kind !== 'container') throw new Error('expected a container pool');
  return pool;
}

const run = (pool: ContainerPoolConfig, engine: 'podman' | 'docker' = 'podman') =>
  containerRunArgs({
    pool,
    engine,
    owner: '42-7',
    session: 'key-1',
    idleTimeoutSeconds: 300,
    lifetimeSeconds: 900,
  });

describe('containerRunArgs', () => {
  it('gives each container a slirp4netns namespace that cannot reach this machine, ports on loopback only', () => {
    const args = run(containerPool({}));
    expect(args).toContain('--network=slirp4netns:allow_host_loopback=false');
    expect(args.filter((arg) => arg.startsWith('--publish='))).toEqual([
      '--publish=127.0.0.1::4444',
      '--publish=127.0.0.1::7900',
    ]);
    expect(args.at(-1)).toBe('selenium/standalone-chromium');
  });

  it("moves the ports to 127.0.0.2 when pages may reach this machine's loopback", () => {
    const args = run(containerPool({ hostLoopback: true, vncPort: false }));
    expect(args).toContain('--network=slirp4netns:allow_host_loopback=true');
    expect(args.filter((arg) => arg.startsWith('--publish='))).toEqual(['--publish=127.0.0.2::4444']);
  });

  it('labels the container with its owner, pool and session, and sets its limits and lifetime', () => {
    const args = run(
      containerPool({ cpus: 1.5, memory: '2g', shmSize: '1g', env: { SE_SCREEN_WIDTH: '1280' } }),
    );
    expect(args).toEqual(
      expect.arrayContaining([
        '--rm',
        '--init',
        '--label=io.gridgate.owner=42-7',
        '--label=io.gridgate.pool=boxes',
        '--label=io.gridgate.session=key-1',
        '--cpus=1.5',
        '--memory=2g',
        '--shm-size=1g',
        '--timeout=900',
        '--env=SE_SCREEN_WIDTH=1280',
        '--env=SE_NODE_MAX_SESSIONS=1',
        '--env=SE_DRAIN_AFTER_SESSION_COUNT=1',
        '--env=SE_NODE_SESSION_TIMEOUT=300',
      ]),
    );
  });

  it("keeps gridgate's one-session knobs over the pool's env", () => {
    const args = run(containerPool({ env: { SE_NODE_MAX_SESSIONS: '5' } }));
    expect(args.filter((arg) => arg.startsWith('--env=SE_NODE_MAX_SESSIONS'))).toEqual([
      '--env=SE_NODE_MAX_SESSIONS=1',
    ]);
  });

  it("sets the session's time zone and screen over the pool's env, gridgate's knobs over both", () => {
    const args = containerRunArgs({
      pool: containerPool({ env: { TZ: 'UTC', SE_SCREEN_WIDTH: '1920' } }),
      engine: 'podman',
      owner: '42-7',
      session: 'key-1',
      idleTimeoutSeconds: 300,
      lifetimeSeconds: 900,
      environment: { TZ: 'Europe/Berlin', SE_SCREEN_WIDTH: '1024', SE_NODE_MAX_SESSIONS: '3' },
    });
    const environment = args.filter((arg) => arg.startsWith('--env='));
    expect(environment).toEqual([
      '--env=TZ=Europe/Berlin',
      '--env=SE_SCREEN_WIDTH=1024',
      '--env=SE_NODE_MAX_SESSIONS=1',
      '--env=SE_DRAIN_AFTER_SESSION_COUNT=1',
      '--env=SE_NODE_SESSION_TIMEOUT=300',
    ]);
  });

  it('leaves the network and the lifetime to Docker, which has neither slirp4netns nor --timeout', () => {
    const args = run(containerPool({}), 'docker');
    expect(args.some((arg) => arg.startsWith('--network') || arg.startsWith('--timeout'))).toBe(false);
  });

  it('refuses a session address off loopback for a container pool', () => {
    const pool = containerPool({});
    expect(addressAllowed(pool, '127.0.0.1:41234')).toBe(true);
    expect(addressAllowed(pool, '10.0.2.100:4444')).toBe(false);
    expect(addressAllowed(pool, '169.254.169.254:80')).toBe(false);
  });

  it('refuses sizes the engines do not take', () => {
    expect(() => containerPool({ memory: '2 GB' })).toThrow(/pools\.boxes\.memory/);
  });
});
