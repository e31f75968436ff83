/**
 * The router head's container image run as its Dockerfile says, without Docker: the build stage's output
 * (dist/server, the production build) laid out as the image holds it in a directory of its own with no
 * node_modules beside it, and the image's CMD run there with the image's ENV and nothing of this machine's
 * environment but what a test gives, behind a TCP proxy on loopback whose URL is the config's publicUrl, as
 * a head behind a load balancer runs.
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
  await ensureServerBuild();
  const image = mkdtempSync(join(tmpdir(), 'gridgate-head-image-'));
  const stage = layOutImage(image);
  let headPort = 0;
  const balancer = await startBalancer(() => headPort);
  const balancerUrl = `http://127.0.0.1:${balancer.port}`;
  const configPath = join(image, stage.env.GRIDGATE_CONFIG as string);
  mkdirSync(dirname(configPath), { recursive: true });
  writeFileSync(configPath, JSON.stringify(config(balancerUrl)));
  const child = spawn(stage.command[0] as string, stage.command.slice(1), {
    cwd: join(image, stage.workdir),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: image,
      ...stage.env,
      GRIDGATE_CONFIG: configPath,
      GRIDGATE_SECRET: randomBytes(32).toString('hex'),
      ...env,
    },
  });
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await balancer.close();
    rmSync(image, { recursive: true, force: true });
  };
  try {
    const headUrl = await followServer(child).url;
    headPort = Number(new URL(headUrl).port);
    return { child, headUrl, balancerUrl, close };
  } catch (error) {
    await close();
    throw error;
  }
}
