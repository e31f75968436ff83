/**
 * A TCP listener that only one local browser reaches: in its network namespace, on the namespace's own
 * address (browser-namespace.ts: nothing outside it, no other session and no page of one, can connect there),
 * or, for a browser that shares this machine's network, on loopback, where it reaches what any program of the
 * machine does. The namespace is the one of the browser's chromedriver (its handle is the pid), so every
 * process of the server, a worker too, finds it from the session ID. Its errors say what failed on this machine
 * (paths, a helper's output): they are for the grid's log, never a client's answer.
 */
import { spawn } from 'node:child_process';
import { readlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { plainScript } from '../../adapters/fs/plain-script';
import type { BrowserNetworkListener, BrowserNetworks } from '../../core/pool-runtime';
import { NAMESPACE_ADDRESS } from './browser-namespace';

const OPEN_TIMEOUT_MS = 10_000;

/** The local kind's way into its browsers' networks, by handle. */
export const localBrowserNetworks: BrowserNetworks = { listen: listenInBrowserNetwork };

async function listenInBrowserNetwork(browserPid: string): Promise<BrowserNetworkListener> {
  if (!/^\d+$/.test(browserPid)) throw new Error(`${browserPid} is not a local browser's handle`);
  const [theirs, ours] = await Promise.all([
    readlink(`/proc/${browserPid}/ns/net`),
    readlink('/proc/self/ns/net'),
  ]);
  if (theirs === ours) {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    return { server, address: `127.0.0.1:${(server.address() as { port: number }).port}` };
  }
  const { server, port } = await listenerFrom(browserPid);
  return { server, address: `${NAMESPACE_ADDRESS}:${port}` };
}

/** listen-in-namespace.cjs run in the browser's namespace, and the listener it hands over. */
function listenerFrom(browserPid: string): Promise<{ server: Server; port: number }> {
  const child = spawn(
    'nsenter',
    [
      `--net=/proc/${browserPid}/ns/net`,
      '--',
      process.execPath,
      plainScript(import.meta.url, 'local', 'listen-in-namespace.cjs'),
      NAMESPACE_ADDRESS,
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-1000);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error("no listener came from the browser's namespace in time"));
    }, OPEN_TIMEOUT_MS);
    child.once('message', (message: { port: number }, server: Server) => {
      clearTimeout(timer);
      resolve({ server, port: message.port });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      // After a message the promise is settled already and this changes nothing.
      reject(new Error(`no listener came from the browser's namespace (${code}): ${stderr.trim()}`));
    });
    // nsenter could not be started (not installed, no process left to spare): no 'exit' comes, and an
    // 'error' nobody listens to would end the whole server.
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
