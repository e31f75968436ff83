/**
 * An upstream that accepts a request and never answers. What bounds the wait:
 *   - a new session: timeouts.newSession, then the browser is stopped and the client told why;
 *   - a command: not the upstream agent (headersTimeout 330 s, functions/webdriver-client/upstream-client.ts), but
 *     the session's idle timeout (5 min by default), measured from the command's start: the sweep
 *     ends the session, stopping the browser ends the request, and the client gets a W3C error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { expireSessions } from '../../functions/use-cases/expire-sessions';
import { expectW3cError, jsonRequest, W3C_CHROME } from '../support/fake-grid';
import type { FakeAnswer } from '../support/fakes';
import { eventually, expectNothingLeft, type ServedFakeGrid, serveFakeGrid } from './served-fake-grid';

let grid: ServedFakeGrid | undefined;
afterEach(async () => {
  await grid?.close();
  grid = undefined;
});

const never = () => new Promise<FakeAnswer>(() => {});

describe('an upstream that hangs', () => {
  it('gives up on a new session after timeouts.newSession and stops the browser', async () => {
    grid = await serveFakeGrid({
      config: { timeouts: { newSession: '500ms' } },
      launcher: { newSession: never },
    });
    const response = await fetch(`${grid.origin}/session`, jsonRequest('POST', W3C_CHROME));
    await expectW3cError(response, 500, 'session not created', /500ms|timeouts\.newSession|time/);
    expect(grid.launcher.started).toHaveLength(1);
    await expectNothingLeft(grid);
  });

  it('ends a session whose command hangs once its idle timeout passes, answering the client', async () => {
    grid = await serveFakeGrid({ config: { timeouts: { idle: '2m' } } });
    const created = await fetch(`${grid.origin}/session`, jsonRequest('POST', W3C_CHROME));
    const id = ((await created.json()) as { value: { sessionId: string } }).value.sessionId;
    grid.launcher.upstream().respond = never;
    const pending = fetch(`${grid.origin}/session/${id}/url`, jsonRequest('POST', { url: 'about:blank' }));
    await eventually(() => expect(grid?.launcher.upstream().commands()).toHaveLength(1));
    // Not yet: the command itself counts as activity.
    grid.clock.advance(60_000);
    await expireSessions(grid.deps);
    expect(await grid.sessions.running()).toHaveLength(1);
    // Past the idle timeout: the sweep (every second in the Node server) ends it.
    grid.clock.advance(61_000);
    await expireSessions(grid.deps);
    await expectW3cError(await pending, 404, 'invalid session id', /idle timeout/);
    await expectNothingLeft(grid);
  });
});
