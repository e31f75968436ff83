/**
 * The local kind's way into a browser's network (its runtime's `network` part, which serves a Playwright
 * client's exposeNetwork proxy): a listener in the network namespace of the process the handle names, at the
 * namespace's own address, which a program inside reaches; on loopback for a process that shares this
 * machine's network. Needs root, as the local pools' namespaces do. The namespace's address is never dialled
 * from here: it is no loopback address.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, type Server } from 'node:net';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { NAMESPACE_ADDRESS } from '../../../functions/pools/local/browser-namespace';
import { localBrowserNetworks } from '../../../functions/pools/local/browser-network-listener';
import { until } from '../../support/until';

const run = promisify(execFile);
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A process standing for a browser, in `namespace` when given; ended after the test. */
async function browserProcess(namespace?: string): Promise<ChildProcess> {
  const [command, args] = namespace
    ? ['ip', ['netns', 'exec', namespace, 'sleep', '120']]
    : ['sleep', ['120']];
  const child = spawn(command, args, { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  cleanups.push(() => {
    child.kill('SIGKILL');
    return exited;
  });
  // Its namespace is the one it runs in once it has exec'd sleep (spawn returns before that).
  await until(
    () => readFileSync(`/proc/${child.pid}/comm`, 'utf8').trim() === 'sleep',
    'the process runs sleep',
  );
  return child;
}

/** A network namespace with the address local browsers' namespaces give themselves; deleted after the test. */
async function namespaceWithBrowserAddress(): Promise<string> {
  const name = `gg-listener-${process.pid}-${randomBytes(3).toString('hex')}`;
  await run('ip', ['netns', 'add', name]);
  cleanups.push(() => run('ip', ['netns', 'delete', name]).catch(() => undefined));
  await run('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
  await run('ip', ['-n', name, 'addr', 'add', `${NAMESPACE_ADDRESS}/32`, 'dev', 'lo']);
  return name;
}

function closing(server: Server): () => Promise<void> {
  return () => new Promise((resolve) => server.close(() => resolve()));
}

/** Whether a connection reaches the server: it counts the ones it accepts. */
function accepted(server: Server): () => number {
  let connections = 0;
  server.on('connection', (socket) => {
    connections++;
    socket.destroy();
  });
  return () => connections;
}

describe("the local kind's browser networks", () => {
  it("listens on this machine's loopback for a browser that shares its network", async () => {
    const browser = await browserProcess();
    const listener = await localBrowserNetworks.listen(String(browser.pid));
    cleanups.push(closing(listener.server));
    expect(listener.address).toMatch(/^127\.0\.0\.1:\d+$/);
    const connections = accepted(listener.server);
    const [host, port] = listener.address.split(':') as [string, string];
    connect(Number(port), host).on('error', () => {});
    await until(() => connections() === 1, 'the connection from this machine is accepted');
  });

  it("listens at the namespace's own address for a browser in a namespace, reached from inside it", async () => {
    const namespace = await namespaceWithBrowserAddress();
    const browser = await browserProcess(namespace);
    const listener = await localBrowserNetworks.listen(String(browser.pid));
    cleanups.push(closing(listener.server));
    const port = Number(listener.address.split(':')[1]);
    expect(listener.address).toBe(`${NAMESPACE_ADDRESS}:${port}`);
    const connections = accepted(listener.server);
    const dial = `require('net').connect(${port}, '${NAMESPACE_ADDRESS}').on('connect', () => process.exit(0)).on('error', () => process.exit(1))`;
    await run('ip', ['netns', 'exec', namespace, process.execPath, '-e', dial]);
    await until(() => connections() === 1, 'the connection from inside the namespace is accepted');
  });

  it('rejects, the server carrying on, when nsenter cannot be started', async () => {
    const namespace = await namespaceWithBrowserAddress();
    const browser = await browserProcess(namespace);
    // spawn finds nsenter on the PATH: with none, it cannot start, as where util-linux is missing.
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      await expect(localBrowserNetworks.listen(String(browser.pid))).rejects.toThrow(/spawn nsenter ENOENT/);
    } finally {
      process.env.PATH = path;
    }
  });

  it('refuses a handle that names no local browser', async () => {
    await expect(localBrowserNetworks.listen('task/abc')).rejects.toThrow(/not a local browser's handle/);
  });
});
