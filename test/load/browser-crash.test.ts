/**
 * A browser whose driver dies mid-session (chromedriver crashed, the machine took it back): the client
 * gets a W3C "invalid session id" that says the session ended, the session is ended and its slot freed,
 * whether the crash happens between commands or while a command is waiting for its answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { expectW3cError, jsonRequest, W3C_CHROME } from '../support/fake-grid';
import type { FakeAnswer } from '../support/fakes';
import { eventually, expectNothingLeft, type ServedFakeGrid, serveFakeGrid } from './served-fake-grid';

let grid: ServedFakeGrid | undefined;
afterEach(async () => {
  await grid?.close();
  grid = undefined;
});

async function createSession(served: ServedFakeGrid): Promise<string> {
  const response = await fetch(`${served.origin}/session`, jsonRequest('POST', W3C_CHROME));
  expect(response.status).toBe(200);
  return ((await response.json()) as { value: { sessionId: string } }).value.sessionId;
}

describe('a browser crashing mid-session', () => {
  it('answers the next command with "invalid session id" and ends the session', async () => {
    grid = await serveFakeGrid();
    const id = await createSession(grid);
    expect((await fetch(`${grid.origin}/session/${id}/title`)).status).toBe(200);
    // The driver's process is gone: its port refuses connections.
    await grid.launcher.upstream().close();
    await expectW3cError(
      await fetch(`${grid.origin}/session/${id}/title`),
      404,
      'invalid session id',
      /ended/,
    );
    await expectNothingLeft(grid);
    // Later commands get the same clear answer, not a hang or a 500.
    await expectW3cError(await fetch(`${grid.origin}/session/${id}/url`), 404, 'invalid session id');
  });

  it('answers a command in flight when the driver dies before answering it', async () => {
    grid = await serveFakeGrid();
    const id = await createSession(grid);
    grid.launcher.upstream().respond = () => new Promise<FakeAnswer>(() => {});
    const pending = fetch(
      `${grid.origin}/session/${id}/execute/sync`,
      jsonRequest('POST', { script: '', args: [] }),
    );
    await eventually(() => expect(grid?.launcher.upstream().commands()).toHaveLength(1));
    await grid.launcher.upstream().close();
    await expectW3cError(await pending, 404, 'invalid session id', /ended/);
    await expectNothingLeft(grid);
  });
});
