/**
 * The router head's container image run as its Dockerfile says, without Docker: the build stage's output
 * (dist/server, the production build) laid out as the image holds it in a directory of its own with no
 * node_modules beside it, and the image's CMD run there with the image's ENV and nothing of this machine's
 * environment but what a test gives, behind a TCP proxy on loopback whose URL is the config's publicUrl, as
 * a head behind a load balancer runs; or several heads of it behind one such proxy, as the service front door
 * runs them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { ensureServerBuild } from '../../scripts/server-build.mjs';
import { finalStage } from './dockerfile-stage';
import { followServer } from './node-server-process';

const ROOT = join(import.meta.dirname, '../..');
/** Where the heads' npm looks for packages: a loopback port nothing serves (tcpmux, port 1). */
const NO_REGISTRY = 'http://127.0.0.1:1/';
/** The build stage's WORKDIR: the repository's root as the Dockerfile's build sees it. */
const BUILD_ROOT = '/app';

export interface HeadImage {
  child: ChildProcess;
  /** The head's own address, which clients are not given. */
  headUrl: string;
  /** The balancer's address: the config's publicUrl, the one clients know. */
  balancerUrl: string;
  /** Ends the head (SIGTERM, so it stops what it started), closes the balancer, removes the image's files. */
  close(): Promise<void>;
}

/** Several heads of the image behind one balancer, which hands each new connection to the next head in turn. */
export interface HeadImages {
  heads: { child: ChildProcess; headUrl: string }[];
  /** The balancer's address: the config's publicUrl, the one clients know. */
  balancerUrl: string;
  /** Ends every head (SIGTERM, so each stops what it started), closes the balancer, removes the image's files. */
  close(): Promise<void>;
}

/** A TCP proxy on loopback in front of the head, as the load balancer is: clients know only its address. */
async function startBalancer(target: () => number): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = tcpConnect(target(), '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** The image's files under `root`, as the Dockerfile's final stage copies them from the build stage. */
function layOutImage(root: string): ReturnType<typeof finalStage> {
  const stage = finalStage(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  for (const { from, to } of stage.copiesFromBuild) {
    const destination = join(root, to.startsWith('/') ? to : join(stage.workdir, to));
    cpSync(join(ROOT, relative(BUILD_ROOT, from)), destination, { recursive: true });
  }
  return stage;
}

/**
 * Starts the head with the config `config(balancerUrl)` (JSON as a user writes it, at the image's
 * GRIDGATE_CONFIG), a fresh signing key and `env` (the AWS endpoints and credentials it is to use).
 */
export async function startHeadImage(
  config: (balancerUrl: string) => Record<string, unknown>,
  env: Record<string, string>,
): Promise<HeadImage> {
  const { heads, balancerUrl, close } = await startHeadImages(1, config, env);
  const [head] = heads as [HeadImages['heads'][number]];
  return { ...head, balancerUrl, close };
}

/**
 * Starts `count` heads of the image, as the service front door runs them: one config `config(balancerUrl)`,
 * one signing key and `env` for all, each its own process, a balancer in front handing connections to each
 * in turn.
 */
export async function startHeadImages(
  count: number,
  config: (balancerUrl: string) => Record<string, unknown>,
  env: Record<string, string>,
): Promise<HeadImages> {
  await ensureServerBuild();
  const root = mkdtempSync(join(tmpdir(), 'gridgate-head-image-'));
  const stage = layOutImage(root);
  const ports: number[] = [];
  let connections = 0;
  const balancer = await startBalancer(() => ports[connections++ % ports.length] as number);
  const balancerUrl = `http://127.0.0.1:${balancer.port}`;
  const configPath = join(root, stage.env.GRIDGATE_CONFIG as string);
  mkdirSync(dirname(configPath), { recursive: true });
  writeFileSync(configPath, JSON.stringify(config(balancerUrl)));
  const secret = randomBytes(32).toString('hex');
  const children = Array.from({ length: count }, () =>
    spawn(stage.command[0] as string, stage.command.slice(1), {
      cwd: join(root, stage.workdir),
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        HOME: root,
        ...stage.env,
        GRIDGATE_CONFIG: configPath,
        GRIDGATE_SECRET: secret,
        // No registry: a Playwright version the image does not carry would be installed from here, where
        // nothing listens (tests never reach the npm registry).
        npm_config_registry: NO_REGISTRY,
        ...env,
      },
    }),
  );
  const close = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }),
    );
    await balancer.close();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const heads = await Promise.all(
      children.map(async (child) => ({ child, headUrl: await followServer(child).url })),
    );
    ports.push(...heads.map(({ headUrl }) => Number(new URL(headUrl).port)));
    return { heads, balancerUrl, close };
  } catch (error) {
    await close();
    throw error;
  }
}
