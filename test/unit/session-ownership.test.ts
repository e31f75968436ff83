import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { parseConfig } from '../../functions/core/config';
import { EndedSessions } from '../../functions/core/ended-sessions';
import type { GridDeps } from '../../functions/core/grid-deps';
import type { SessionRecord } from '../../functions/core/ports';
import { SessionTokens } from '../../functions/core/session-token';
import { SlotQueue } from '../../functions/core/slot-queue';
import { POOL_TRAITS } from '../../functions/pools';
import { headSessions, runsOnAnotherHead } from '../../functions/use-cases/session-ownership';
import { sampleRecord } from '../contract/store-samples';
import { CollectingLogger, FixedClock } from '../support/fakes';

const GRACE_MS = 30_000;

function setup(running: readonly string[] = []) {
  const clock = new FixedClock();
  const deps: GridDeps = {
    config: parseConfig(
      {
        browsers: { chrome: { versions: { '156': { pools: ['local', 'hub', 'boxes'] } } } },
        pools: {
          local: { kind: 'local' },
          hub: { kind: 'hub', url: 'http://127.0.0.1:4444/wd/hub' },
          boxes: { kind: 'container', image: 'localhost/chromium:test' },
        },
      },
      { builtInBrowserVersion: '156' },
    ),
    runtimes: {},
    poolTraits: POOL_TRAITS,
    sessions: new MemorySessionStore(),
    queue: new SlotQueue(),
    ended: new EndedSessions(),
    tokens: new SessionTokens(Buffer.alloc(32, 1)),
    logger: new CollectingLogger(),
    clock,
    version: 'test',
    head: 'this-head',
  };
  const facts = { isRunning: (handle: string) => running.includes(handle), staleSlotGraceMs: GRACE_MS };
  const record = (key: string, overrides: Partial<SessionRecord> = {}) =>
    sampleRecord(key, { createdAt: clock.now(), maxAgeMs: 600_000, ...overrides });
  return { deps, clock, facts, record };
}

describe('which head may end which session', () => {
  it("leaves another head's local browser to that head, and any hub session to any head", () => {
    const { deps } = setup();
    expect(runsOnAnotherHead(deps, { pool: 'local', head: 'other-head' })).toBe(true);
    expect(runsOnAnotherHead(deps, { pool: 'local', head: 'this-head' })).toBe(false);
    // A record from before records named their head: the handle decides, the launcher stops what it runs.
    expect(runsOnAnotherHead(deps, { pool: 'local', head: undefined })).toBe(false);
    expect(runsOnAnotherHead(deps, { pool: 'hub', head: 'other-head' })).toBe(false);
  });

  it("leaves another head's container to that head, whose engine alone runs it", () => {
    const { deps, facts, record } = setup();
    expect(runsOnAnotherHead(deps, { pool: 'boxes', head: 'other-head' })).toBe(true);
    expect(runsOnAnotherHead(deps, { pool: 'boxes', head: 'this-head' })).toBe(false);
    const { mine, startedHere } = headSessions(deps, { ...facts, shared: true });
    expect(mine(record('theirs', { pool: 'boxes', head: 'other-head' }))).toBe(false);
    // Its shutdown ends its own container sessions in the shared store, not only their containers.
    expect(startedHere(record('own', { pool: 'boxes', head: 'this-head' }))).toBe(true);
  });

  it("with a shared store, sweeps its own local sessions and every hub one, not another head's", () => {
    const { deps, facts, record } = setup();
    const { mine, startedHere } = headSessions(deps, { ...facts, shared: true });
    expect(mine(record('own', { head: 'this-head' }))).toBe(true);
    expect(startedHere(record('own', { head: 'this-head' }))).toBe(true);
    expect(mine(record('theirs', { head: 'other-head' }))).toBe(false);
    expect(mine(record('hub', { pool: 'hub', head: 'other-head' }))).toBe(true);
    expect(startedHere(record('hub', { pool: 'hub', head: 'this-head' }))).toBe(false);
  });

  it("ends another head's local session once it is past its maximum age by the clock slack", () => {
    const { deps, clock, facts, record } = setup();
    const { mine } = headSessions(deps, { ...facts, shared: true });
    const theirs = record('theirs', { head: 'other-head' });
    clock.advance(theirs.maxAgeMs + GRACE_MS - 1);
    expect(mine(theirs)).toBe(false);
    clock.advance(1);
    expect(mine(theirs)).toBe(true);
  });

  it('with a store of its own, sweeps every session', () => {
    const { deps, facts, record } = setup();
    expect(
      headSessions(deps, { ...facts, shared: false }).mine(record('theirs', { head: 'other-head' })),
    ).toBe(true);
  });

  it('ends at its shutdown only the sessions it started when the store is shared, else every one', () => {
    const { deps, facts, record } = setup();
    const shared = headSessions(deps, { ...facts, shared: true }).endedAtShutdown;
    expect(shared(record('own', { head: 'this-head' }))).toBe(true);
    expect(shared(record('theirs', { head: 'other-head' }))).toBe(false);
    // Another head serves a hub session in the shared store on.
    expect(shared(record('hub', { pool: 'hub', head: 'this-head' }))).toBe(false);
    const alone = headSessions(deps, { ...facts, shared: false }).endedAtShutdown;
    expect(alone(record('theirs', { head: 'other-head' }))).toBe(true);
    expect(alone(record('hub', { pool: 'hub', head: 'this-head' }))).toBe(true);
  });

  it('knows its own local browser that no longer runs is gone, for the reason it was stopped', () => {
    const { deps, facts, record } = setup(['handle-alive']);
    const { gone } = headSessions(deps, { ...facts, shared: true });
    expect(gone(record('alive', { head: 'this-head' }))).toBeUndefined();
    expect(gone(record('exited', { head: 'this-head' }))).toBe('browser exited');
    deps.ended.remember('deleted', { reason: 'deleted' });
    expect(gone(record('deleted', { head: 'this-head' }))).toBe('deleted');
    // Another head's browser, or a hub session, is not this launcher's to know about.
    expect(gone(record('theirs', { head: 'other-head' }))).toBeUndefined();
    expect(gone(record('hub', { pool: 'hub', head: 'this-head' }))).toBeUndefined();
  });
});
