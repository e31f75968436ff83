/**
 * Two reference proxies in front of gridgate's own chromedriver, for the command benchmark: nginx (a
 * proxy that costs close to nothing) and a plain Node proxy (plain-node-proxy.ts: what any Node proxy
 * pays on this machine). Together they split gridgate's added latency into the runtime's share and
 * gridgate's own.
 */
import { fileURLToPath } from 'node:url';
import { startNginxProxy } from './proxy-nginx';
import { freePort, readyOrStopped, type ServerProcess, startServerProcess } from './proxy-processes';

const READY_MS = 20_000;

export interface ReferenceProxies {
  nginx: string;
  plainNode: string;
  /** Their processes (nginx's master, the Node proxy), whose trees' CPU time is theirs. */
  pids: { nginx: number; plainNode: number };
  stop(): Promise<void>;
}

/** Starts both in front of `upstream` (http://host:port); both are stopped by teardown.ts too. */
export async function startReferenceProxies(upstream: string): Promise<ReferenceProxies> {
  const nginx = await startNginxProxy(upstream);
  try {
    const plainNode = await startPlainNodeProxy(upstream);
    return {
      nginx: nginx.origin,
      plainNode: plainNode.origin,
      pids: { nginx: nginx.process.pid, plainNode: plainNode.process.pid },
      stop: async () => {
        await Promise.all([nginx.process.stop(), plainNode.process.stop()]);
      },
    };
  } catch (error) {
    await nginx.process.stop();
    throw error;
  }
}

/** plain-node-proxy.ts in its own process group, in front of `upstream`, once it answers. */
export function startPlainNodeProxy(upstream: string): Promise<{ origin: string; process: ServerProcess }> {
  return startNodeProxy('plain-node-proxy.ts', 'the plain Node proxy', upstream);
}

/** node-pipe-proxy.ts (bytes piped, nothing parsed) likewise. */
export function startNodePipeProxy(upstream: string): Promise<{ origin: string; process: ServerProcess }> {
  return startNodeProxy('node-pipe-proxy.ts', 'the Node pipe', upstream);
}

async function startNodeProxy(
  file: string,
  name: string,
  upstream: string,
): Promise<{ origin: string; process: ServerProcess }> {
  const port = await freePort();
  const entry = fileURLToPath(new URL(`./${file}`, import.meta.url));
  // The same runtime and loader as gridgate's process (process.execArgv carries tsx).
  const started = startServerProcess(
    process.execPath,
    [...process.execArgv, entry, upstream, String(port)],
    'SIGTERM',
  );
  const origin = `http://127.0.0.1:${port}`;
  await readyOrStopped(name, READY_MS, started, async () => (await fetch(`${origin}/status`)).ok);
  return { origin, process: started };
}
