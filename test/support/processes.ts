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
