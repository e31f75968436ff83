/**
 * A network namespace of its own for one local browser, chromedriver and Chromium both, so that its pages
 * reach nothing of the grid's (DESIGN invariant 7):
 * - gridgate reaches chromedriver (port 9515 inside) and Chromium's DevTools (9222 inside) through ports pasta
 *   forwards from 127.0.0.2, an address of this machine's loopback no namespace can reach: their loopback is
 *   redirected to this machine's 127.0.0.1 only;
 * - inside, Chromium runs as a user and group of its own (browser-user.ts) and only sockets of group root
 *   (chromedriver, pasta) may connect to those two ports, so no page, and nothing Chromium starts, reaches them;
 * - pasta gives the namespace the internet the machine has (IPv4 only: one address family to rule over);
 * - the namespace's loopback is redirected to this machine's 127.0.0.1, so a dev server on localhost:3000, or
 *   one a test started on a random port, stays reachable; gridgate's own port is refused.
 * Other sessions' chromedrivers and DevTools ports are all on 127.0.0.2 or inside their own namespaces.
 * The namespace is named after the gridgate process (gridgate-<pid>-…), so one left by a killed gridgate is
 * found and deleted at the next start (orphan-sweep.ts).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { acceptsConnections, freePortOn } from '../../adapters/net/loopback-ports';
import { exitsWithin, type Group, stopGroup } from '../../adapters/process/process-group';
import { closedToBrowsers } from './browser-user';

export const NAMESPACE_PREFIX = 'gridgate-';
/** chromedriver's and Chromium's DevTools ports inside every namespace, which only group root may connect to. */
export const NAMESPACE_DRIVER_PORT = 9515;
export const NAMESPACE_DEVTOOLS_PORT = 9222;
/**
 * The address a browser's namespace gives itself, where a listener for that browser alone is opened
 * (browser-network-listener.ts). A documentation range (RFC 5737): never a real network, so the namespace's
 * gateway is never mistaken for one. It is reached from inside the namespace only (pasta forwards nothing else in).
 */
export const NAMESPACE_ADDRESS = '192.0.2.2';
/** Where gridgate reaches every namespace's forwarded ports: on loopback, but not the address namespaces reach. */
const GRID_LOOPBACK = '127.0.0.2';
// The namespace's gateway, in the documentation range of its own address.
const GATEWAY = '192.0.2.1';
const READY_TIMEOUT_MS = 5000;
const POLL_MS = 10;

const run = promisify(execFile);

export interface BrowserNamespace {
  name: string;
  /** host:port on this machine's loopback that reaches chromedriver inside the namespace. */
  driver: string;
  /** host:port on this machine's loopback that reaches Chromium's DevTools port inside the namespace. */
  devtools: string;
  /** pasta, in a process group of its own. */
  pasta: Group;
}

export interface NamespaceOptions {
  /** Ports of this machine's loopback the browser's pages must not reach: gridgate's own. */
  gridPorts: readonly number[];
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
}

/** Why this machine cannot give browsers namespaces of their own, or undefined when it can. */
export async function namespacesUnavailable(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'gridgate is not running as root';
  const missing: string[] = [];
  for (const tool of ['ip', 'nsenter', 'nft', 'pasta', 'setpriv']) {
    try {
      await run('sh', ['-c', `command -v ${tool}`]);
    } catch {
      missing.push(tool);
    }
  }
  if (missing.length) return `missing ${missing.join(', ')}`;
  const closed = await closedToBrowsers(tmpdir());
  return closed && `browsers' own users cannot pass through ${closed} (TMPDIR): it needs o+x`;
}

let made = 0;

/** Makes the namespace, its rules and its pasta; on failure nothing of it is left. */
export async function openBrowserNamespace(options: NamespaceOptions): Promise<BrowserNamespace> {
  const name = `${NAMESPACE_PREFIX}${process.pid}-${++made}-${randomBytes(3).toString('hex')}`;
  let pasta: Pasta | undefined;
  try {
    const [driverPort, devtoolsPort] = [await freePortOn(GRID_LOOPBACK), await freePortOn(GRID_LOOPBACK)];
    pasta = startNamespace(
      name,
      options.gridPorts,
      { [driverPort]: NAMESPACE_DRIVER_PORT, [devtoolsPort]: NAMESPACE_DEVTOOLS_PORT },
      options.env,
    );
    await listening(devtoolsPort, pasta, options.signal);
    return {
      name,
      driver: `${GRID_LOOPBACK}:${driverPort}`,
      devtools: `${GRID_LOOPBACK}:${devtoolsPort}`,
      pasta,
    };
  } catch (error) {
    await closeBrowserNamespace({ name, pasta });
    throw error;
  }
}

/** Stops pasta and deletes the namespace (what still runs inside it must be stopped before). */
export async function closeBrowserNamespace(namespace: { name: string; pasta?: Group }): Promise<void> {
  if (namespace.pasta) await stopGroup(namespace.pasta);
  await deleteNamespace(namespace.name);
}

export async function deleteNamespace(name: string): Promise<void> {
  await run('ip', ['netns', 'delete', name]).catch(() => undefined);
}

/** A command line that runs `command` inside the namespace (nsenter execs it: the pid stays the command's). */
export function inNamespace(name: string, command: string, args: readonly string[]): [string, string[]] {
  return ['nsenter', [`--net=/run/netns/${name}`, '--', command, ...args]];
}

/** pasta's process group, and what the shell that became pasta wrote to stderr (why setting up failed). */
interface Pasta extends Group {
  /** Its stderr once read to the end (a process's exit can come before its last output is read), or after 1 s. */
  stderr(): Promise<string>;
}

/**
 * Adds the namespace, sets its rules, and becomes its pasta, all in one shell that ends in `exec pasta`: each
 * program Node starts itself costs a fork of the whole server, which holds its event loop for ~7-20 ms (more
 * with its memory; bench/README), while the shell's own forks are cheap. This runs when a session has just taken
 * the ready chromedriver, as its first commands come. Once set up the shell is pasta, in a process group of its
 * own, which closing the namespace stops.
 *
 * Loopback traffic inside the namespace goes to this machine's 127.0.0.1 through pasta's gateway mapping,
 * except to chromedriver's and DevTools' own ports there, which only group root's sockets may open; gridgate's
 * ports are refused (a reset, so a page fails at once). route_localnet lets a packet addressed to 127.0.0.1
 * leave by the namespace's interface once redirected.
 *
 * No IPv6 inside (pasta serves IPv4 only): otherwise the interface pasta brings up gets a link-local IPv6 address
 * ~1.4 s later, once duplicate address detection ends: an address change in the middle of whatever the browser
 * started meanwhile does, which Chromium may answer by failing its requests in flight (ERR_NETWORK_CHANGED).
 * Sessions started soon after a namespace were seen to lose their first navigation. sysctl -e: a kernel without
 * IPv6 has no such keys.
 *
 * pasta: --runas 0: it otherwise becomes "nobody", who cannot enter a namespace of root's. -f: it stays in the
 * foreground, this process. Only the forwarded ports come in from this machine; nothing of UDP; no IPv6.
 */
function startNamespace(
  name: string,
  gridPorts: readonly number[],
  forwards: Record<number, number>,
  env: NodeJS.ProcessEnv,
): Pasta {
  const blocked = [...new Set(gridPorts.filter((port) => port > 0))].join(', ');
  const rules = `
table ip gridgate {
  chain loopback_to_host {
    type nat hook output priority -100; policy accept;
    ip daddr 127.0.0.0/8 tcp dport != { ${NAMESPACE_DRIVER_PORT}, ${NAMESPACE_DEVTOOLS_PORT} } dnat to ${GATEWAY}
  }
  chain host_source {
    type nat hook postrouting priority 100; policy accept;
    ip daddr ${GATEWAY} masquerade
  }
  chain grid_ports {
    type filter hook output priority 0; policy accept;
    ip daddr 127.0.0.0/8 tcp dport { ${NAMESPACE_DRIVER_PORT}, ${NAMESPACE_DEVTOOLS_PORT} } meta skgid != 0 reject with tcp reset${
      blocked
        ? `
    ip daddr ${GATEWAY} tcp dport { ${blocked} } reject with tcp reset`
        : ''
    }
  }
}
`;
  const pasta = [
    'pasta --runas 0:0 -q -f -4 --config-net',
    `-a ${NAMESPACE_ADDRESS} -n 24 -g ${GATEWAY}`,
    ...Object.entries(forwards).map(
      ([host, inside]) => `-t ${GRID_LOOPBACK}/${Number(host)}:${Number(inside)}`,
    ),
    '-T none -u none -U none --netns "$1" </dev/null',
  ].join(' ');
  const script = [
    'set -e',
    'ip netns add "$1"',
    'ip netns exec "$1" sysctl -q -e -w net.ipv4.conf.all.route_localnet=1 net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1',
    'ip netns exec "$1" nft -f -',
    `exec ${pasta}`,
  ].join('\n');
  const child: ChildProcess = spawn('sh', ['-c', script, 'sh', name], {
    detached: true,
    stdio: ['pipe', 'ignore', 'pipe'],
    env,
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  // A shell that ended early (ip refused the name) closes its stdin: its exit says why.
  child.stdin?.once('error', () => undefined);
  child.stdin?.end(rules);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const read = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.once('error', () => resolve());
  });
  const stderrRead = async () => {
    await exitsWithin(read, 1000);
    return stderr.trim();
  };
  return { child, exited, stderr: stderrRead };
}

/** Waits until pasta accepts on the forwarded port (it binds it once the namespace is set up). */
async function listening(port: number, pasta: Pasta, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    signal.throwIfAborted();
    if (pasta.child.exitCode !== null || pasta.child.signalCode !== null)
      throw new Error(
        `the browser's namespace could not be set up (code ${pasta.child.exitCode}): ${(await pasta.stderr()) || 'no reason given'}`,
      );
    if (await acceptsConnections(GRID_LOOPBACK, port)) return;
    if (Date.now() > deadline)
      throw new Error(`pasta did not set up the browser's namespace in ${READY_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
