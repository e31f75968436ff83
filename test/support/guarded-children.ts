/**
 * For a test file whose work runs in Node children (npm installs, Playwright's test runner, the grid's
 * Playwright servers): every Node child started while it is on loads the loopback guard (loopback-guard.cjs)
 * through NODE_OPTIONS, so a connection it tries off loopback is refused and logged, and so is a name it looks
 * up; the test then asks what was tried outside. Call in a beforeAll; vi.unstubAllEnvs() turns it off.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';

const GUARD = fileURLToPath(new URL('./loopback-guard.cjs', import.meta.url));

interface GuardEntry {
  kind: 'connect' | 'lookup';
  host?: string;
  port?: number | string;
  allowed: boolean;
}

export interface GuardedChildren {
  /** Everything the children tried so far: connections and name lookups, each allowed or not. */
  tried(): GuardEntry[];
  /** What of it was off loopback (connections refused, lookups of other names). */
  outside(): GuardEntry[];
  /** Removes the log. */
  close(): void;
}

export function guardChildren(): GuardedChildren {
  const folder = mkdtempSync(join(tmpdir(), 'gg-guarded-children-'));
  const log = join(folder, 'connections.jsonl');
  vi.stubEnv('NODE_OPTIONS', `${process.env.NODE_OPTIONS ?? ''} --require ${GUARD}`.trim());
  vi.stubEnv('LOOPBACK_GUARD_LOG', log);
  const tried = (): GuardEntry[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as GuardEntry)
      : [];
  return {
    tried,
    outside: () => tried().filter((entry) => !entry.allowed),
    close: () => rmSync(folder, { recursive: true, force: true }),
  };
}
