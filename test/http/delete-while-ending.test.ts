/**
 * A DELETE that comes while the expiry sweep is ending the same session: the session is refused as ended
 * from the start of that end, but the answer waits until the end is over, so a client told its session
 * is gone finds its slot free, as it does after its own DELETE.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { expireSessions } from '../../functions/use-cases/expire-sessions';
import { expectW3cError, type FakeGrid, newSession, startFakeGrid } from '../support/fake-grid';
import { eventually } from '../support/until';

/** The memory store, each release held until the test lets it through (a slow store's transaction). */
class HeldReleaseStore extends MemorySessionStore {
  private readonly waiting: (() => void)[] = [];
  releasesWaiting = 0;

  override async release(key: string): Promise<void> {
    this.releasesWaiting++;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.releasesWaiting--;
    await super.release(key);
  }

  letThrough(): void {
    for (const release of this.waiting.splice(0)) release();
  }
}

let grid: FakeGrid | undefined;
afterEach(() => grid?.close());

describe('a DELETE while the expiry sweep ends its session', () => {
  it('is answered invalid session id (idle timeout) once the slot is free, not before', async () => {
    const sessions = new HeldReleaseStore();
    grid = startFakeGrid({ sessions });
    const id = await newSession(grid);
    grid.clock.advance(grid.deps.config.timeouts.idle);
    const sweep = expireSessions(grid.deps);
    await eventually(() => expect(sessions.releasesWaiting).toBe(1));

    // The sweep has ended the record and stopped the browser; its slot is not free yet.
    const answered = Promise.resolve(grid.app.request(`/session/${id}`, { method: 'DELETE' })).then(
      async (response) => ({ response, inUse: await sessions.inUse() }),
    );
    const early = await Promise.race([answered, sleep(50).then(() => undefined)]);
    sessions.letThrough();
    const { response, inUse } = early ?? (await answered);

    expect(inUse).toEqual({});
    await expectW3cError(
      response,
      404,
      'invalid session id',
      'session ended: no command for 5m (idle timeout)',
    );
    expect(await sweep).toBe(1);
    expect(grid.deps.ending?.size).toBe(0);
  });
});
