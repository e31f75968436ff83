/** Small facts about this machine's processes and ports that several end-to-end tests need. */
import { type AddressInfo, createServer } from 'node:net';

/** A port free on every address now (the caller binds it soon after; nothing holds it meanwhile). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * A port free now below the ephemeral range, for a listener that binds it later (a fake task's container):
 * the many port-0 listeners of a test run (chromedrivers, servers) are handed ephemeral ports only, so none
 * of them takes it meanwhile, as one could take a port freePort() found.
 */
export async function freePortBelowEphemeral(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const probe = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) continue;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return port;
  }
}

/** Whether a listener may bind this loopback port now (the last one there has let it go). */
export async function portFree(port: number): Promise<boolean> {
  const probe = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (bound) await new Promise<void>((resolve) => probe.close(() => resolve()));
  return bound;
}

/** Whether any process of the group led by `pid` still runs (a browser's chromedriver and Chromium). */
export function processGroupAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
