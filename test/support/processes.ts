/** Small facts about this machine's processes and ports that several end-to-end tests need. */
import { readdirSync, readFileSync } from 'node:fs';
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

/**
 * Whether any process of the group led by `pid` still runs (a browser's chromedriver and Chromium). A member
 * that is only a zombie (ended, waiting for PID 1 to reap it: Chromium's orphaned zygotes) does not run, as
 * gridgate's own stop (pools/local/process-group.ts) counts it.
 */
export function processGroupAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, 0);
  } catch {
    return false;
  }
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .some((entry) => {
      const fields = procStatFields(entry);
      return fields !== undefined && Number(fields[2]) === pid && fields[0] !== 'Z' && fields[0] !== 'X';
    });
}

/**
 * The processes descending from `root` now (its children, theirs, …), with their command lines (arguments
 * joined by spaces; empty for a zombie), read from /proc. A process whose parent ended is re-parented to
 * PID 1 and is no longer anyone's descendant.
 */
export function descendantsOf(root: number): { pid: number; args: string }[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = Number(procStatFields(entry)?.[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  for (let next = children.get(root) ?? []; next.length > 0; ) {
    found.push(...next);
    next = next.flatMap((pid) => children.get(pid) ?? []);
  }
  return found.flatMap(withArgs);
}

/** Every process running now, with its command line as descendantsOf gives it. */
export function processesNow(): { pid: number; args: string }[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => withArgs(Number(entry)));
}

function withArgs(pid: number): { pid: number; args: string }[] {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').filter(Boolean).join(' ');
    return [{ pid, args }];
  } catch {
    return []; // gone meanwhile
  }
}

/** A process's /proc stat fields after its name: state, ppid, pgrp, …; undefined once it is gone. */
function procStatFields(pid: string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}
