/**
 * A browser's network namespace as the local pool opens it (root, ip, nft, pasta; skipped without them): its
 * rules and settings in place, pasta forwarding into it, and nothing of it left once closed or when setting it
 * up fails.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { acceptsConnections } from '../../../functions/adapters/net/loopback-ports';
import {
  closeBrowserNamespace,
  NAMESPACE_PREFIX,
  namespacesUnavailable,
  openBrowserNamespace,
} from '../../../functions/pools/local/browser-namespace';

const unavailable = await namespacesUnavailable();
const namespaces = () => execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
const inside = (name: string, ...command: string[]) =>
  execFileSync('ip', ['netns', 'exec', name, ...command], { encoding: 'utf8' });
/** The PIDs of processes whose command line matches `pattern` (pgrep answers 1 when there is none). */
function processesMatching(pattern: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', '--', pattern], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch (error) {
    if ((error as { status?: number }).status === 1) return [];
    throw error;
  }
}
const options = (gridPorts: number[]) => ({
  gridPorts,
  env: process.env,
  signal: new AbortController().signal,
});

describe.skipIf(unavailable)("a browser's namespace", () => {
  it('has its rules, no IPv6 and pasta forwarding in; closed, nothing of it is left', async () => {
    const namespace = await openBrowserNamespace(options([4444]));
    try {
      expect(namespaces()).toContain(namespace.name);
      expect(inside(namespace.name, 'nft', 'list', 'table', 'ip', 'gridgate')).toMatch(
        /tcp dport 4444 reject with tcp reset/,
      );
      expect(inside(namespace.name, 'sysctl', '-n', 'net.ipv6.conf.all.disable_ipv6').trim()).toBe('1');
      expect(inside(namespace.name, 'sysctl', '-n', 'net.ipv4.conf.all.route_localnet').trim()).toBe('1');
      const [host, port] = namespace.devtools.split(':') as [string, string];
      expect(await acceptsConnections(host, Number(port))).toBe(true);
      // The shell that set the namespace up became pasta (which runs as passt, or its build for this CPU).
      expect(
        execFileSync('ps', ['-o', 'comm=', '-p', String(namespace.pasta.child.pid)], { encoding: 'utf8' }),
      ).toMatch(/^(pasta|passt)/);
    } finally {
      await closeBrowserNamespace(namespace);
    }
    expect(namespaces()).not.toContain(namespace.name);
    expect(namespace.pasta.child.exitCode ?? namespace.pasta.child.signalCode).not.toBeNull();
  });

  it('says why when its rules are refused, and leaves no namespace and no pasta', async () => {
    // No TCP port is 70000: nft refuses the rule set, before pasta ever starts.
    await expect(openBrowserNamespace(options([70_000]))).rejects.toThrow(
      /the browser's namespace could not be set up \(code \d+\): .*70000/s,
    );
    // Namespaces this process makes are named after it (other test files run their own meanwhile).
    const ours = `${NAMESPACE_PREFIX}${process.pid}-`;
    expect(namespaces()).not.toContain(ours);
    expect(processesMatching(ours)).toEqual([]);
  });
});
