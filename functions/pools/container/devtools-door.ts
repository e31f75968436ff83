/**
 * The DevTools door of a session's container: Chromium's remote-debugging port inside the container's own
 * network namespace, reached from this machine's 127.0.0.2 through a pasta process that joins that namespace
 * and forwards one port (nothing else comes in; nothing goes out through it). gridgate serves se:cdp and
 * records video through the door as it does for a local browser's DevTools port; chromedriver keeps that port
 * on the container's loopback, so without the door a plain chromedriver image offers no CDP at all.
 * - 127.0.0.2 is on no page's way: slirp4netns maps a page's 10.0.2.2 to 127.0.0.1 alone (and only with
 *   `hostLoopback`), so no session reaches another's door, as none reaches another's published ports.
 * - pasta joins the namespace by a name under /run/netns (`ip netns attach`): it cannot open a container's
 *   /proc/<pid>/ns/net itself ("Couldn't open network namespace"), and it quits by itself once that name is
 *   deleted, which closing the door does. The name carries the owner's mark, so the names a gridgate killed
 *   outright left are deleted by the start-up sweep (container-sweep.ts), and their pasta quits with them.
 * Needs root (`ip netns attach`) and pasta; without them doorsUnavailable() says why and sessions have no door.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { acceptsConnections, freePortOn } from '../../adapters/net/loopback-ports';
import type { ContainerEngine } from './container-engine';
import { markAlive } from './owner-mark';

/** The loopback address doors listen on, which no container's pages reach. */
const DOOR_HOST = '127.0.0.2';
/** Names of door namespaces: this prefix, the owner's mark, the container's short ID. */
const DOOR_PREFIX = 'gridgate-door-';
/** Where `ip netns` keeps named network namespaces. */
const NAMESPACES = '/run/netns';
/** The interface pasta adds inside the container (left down: it carries nothing), apart from the engine's. */
const DOOR_INTERFACE = 'gg-door';
const READY_TIMEOUT_MS = 5000;
const POLL_MS = 20;
const STOP_GRACE_MS = 1000;

const run = promisify(execFile);

export interface DevtoolsDoor {
  /** host:port on this machine's loopback that reaches Chromium's DevTools port in the container. */
  address: string;
  /** Stops pasta and deletes the namespace's name; idempotent. */
  close(): Promise<void>;
}

let unavailable: Promise<string | undefined> | undefined;

/** Why this machine cannot open DevTools doors (not root, no pasta or ip), or undefined when it can. */
export function doorsUnavailable(): Promise<string | undefined> {
  unavailable ??= (async () => {
    if (process.getuid?.() !== 0) return 'gridgate is not running as root';
    const missing: string[] = [];
    for (const tool of ['ip', 'pasta']) {
      await run('sh', ['-c', `command -v ${tool}`]).catch(() => missing.push(tool));
    }
    return missing.length ? `missing ${missing.join(', ')}` : undefined;
  })();
  return unavailable;
}

/** The DevTools port in chromedriver's `debuggerAddress` ("localhost:42971"), if it names one. */
export function devtoolsPortOf(debuggerAddress: string): number | undefined {
  const port = /^(?:localhost|127\.0\.0\.1):(\d{1,5})$/.exec(debuggerAddress)?.[1];
  return port && Number(port) > 0 && Number(port) < 65536 ? Number(port) : undefined;
}

/** Opens the door to `port` in the container's namespace; on failure nothing of it is left. */
export async function openDevtoolsDoor(options: {
  engine: ContainerEngine;
  id: string;
  port: number;
  /** The owner mark of this gridgate process (owner-mark.ts). */
  owner: string;
}): Promise<DevtoolsDoor> {
  const pid = await options.engine.pid(options.id);
  const name = `${DOOR_PREFIX}${options.owner}-${options.id.slice(0, 12)}`;
  await run('ip', ['netns', 'attach', name, String(pid)]);
  let pasta: ChildProcess | undefined;
  try {
    const hostPort = await freePortOn(DOOR_HOST);
    pasta = startPasta(name, hostPort, options.port);
    await listening(hostPort, pasta);
    const started = pasta;
    let closing: Promise<void> | undefined;
    return {
      address: `${DOOR_HOST}:${hostPort}`,
      close: () => {
        closing ??= closeDoor(name, started);
        return closing;
      },
    };
  } catch (error) {
    await closeDoor(name, pasta);
    throw error;
  }
}

/** Deletes the door namespaces' names whose gridgate is gone (their pasta quits with them); how many. */
export async function sweepDoors(directory = NAMESPACES): Promise<number> {
  const owned = new RegExp(`^${DOOR_PREFIX}(\\d+-\\d+)-`);
  let deleted = 0;
  for (const name of await readdir(directory).catch(() => [])) {
    const owner = owned.exec(name)?.[1];
    if (owner === undefined || markAlive(owner)) continue;
    await run('ip', ['netns', 'delete', name]).catch(() => undefined);
    deleted++;
  }
  return deleted;
}

async function closeDoor(name: string, pasta: ChildProcess | undefined): Promise<void> {
  // pasta quits once the name is gone; it is told too, and killed if it lingers.
  await run('ip', ['netns', 'delete', name]).catch(() => undefined);
  if (!pasta || pasta.exitCode !== null || pasta.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => pasta.once('exit', () => resolve()));
  pasta.kill('SIGTERM');
  const timer = setTimeout(() => pasta.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

function startPasta(name: string, hostPort: number, port: number): ChildProcess {
  // --runas 0: pasta otherwise becomes "nobody", who cannot enter a namespace of root's. -f: it stays our
  // child. Only the one port comes in (TCP from 127.0.0.2, spliced to the container's loopback), nothing of
  // UDP, no IPv6, and the namespace's own network (the engine's) is left as it is: no --config-net.
  return spawn(
    'pasta',
    [
      '--runas',
      '0:0',
      '-q',
      '-f',
      '-4',
      '-I',
      DOOR_INTERFACE,
      '-t',
      `${DOOR_HOST}/${hostPort}:${port}`,
      '-T',
      'none',
      '-u',
      'none',
      '-U',
      'none',
      '--netns',
      name,
    ],
    { stdio: 'ignore' },
  );
}

/** Waits until pasta accepts on the door's port (it binds it once it has joined the namespace). */
async function listening(port: number, pasta: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (pasta.exitCode !== null || pasta.signalCode !== null)
      throw new Error(`pasta ended (code ${pasta.exitCode}) before the container's DevTools door opened`);
    if (await acceptsConnections(DOOR_HOST, port)) return;
    if (Date.now() > deadline)
      throw new Error(`pasta did not open the container's DevTools door in ${READY_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
