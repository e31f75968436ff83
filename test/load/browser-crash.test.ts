/**
 * A browser whose driver dies mid-session (chromedriver crashed, the machine took it back): the client
 * gets a W3C "invalid session id" that says the session ended, the session is ended and its slot freed,
 * whether the crash happens between commands or while a command is waiting for its answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { expectW3cError, jsonRequest, W3C_CHROME } from '../support/fake-grid';
import { type FakeAnswer, jsonAnswer } from '../support/fakes';
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

  // chromedriver's own answer once its Chromium is gone and chromedriver lives on.
  const browserClosed: FakeAnswer = jsonAnswer(404, {
    value: {
      error: 'invalid session id',
      message: 'invalid session id: session deleted as the browser has closed the connection',
      stacktrace: '',
    },
  });

  it('takes a local browser’s own "invalid session id" as the end, on the streaming path', async () => {
    grid = await serveFakeGrid();
    const id = await createSession(grid);
    grid.launcher.upstream().respond = () => browserClosed;
    await expectW3cError(
      await fetch(`${grid.origin}/session/${id}/title`),
      404,
      'invalid session id',
      'session ended: the browser exited or crashed',
    );
    expect(grid.launcher.stops).toEqual(['fake-1']);
    await expectNothingLeft(grid);
    expect(grid.logger.fieldsOf('SESSION_ENDED')[0]).toMatchObject({ reason: 'browser exited' });
  });

  it('takes a local browser’s own "invalid session id" as the end, on the portable path', async () => {
    grid = await serveFakeGrid();
    const id = await createSession(grid);
    grid.launcher.upstream().respond = () => browserClosed;
    await expectW3cError(
      await grid.app.request(`/session/${id}/title`),
      404,
      'invalid session id',
      'session ended: the browser exited or crashed',
    );
    await expectNothingLeft(grid);
  });

  it('passes any other 404 on unchanged and keeps the session', async () => {
    grid = await serveFakeGrid();
    const id = await createSession(grid);
    const noSuchElement =
      '{"value":{"error":"no such element","message":"Unable to locate element","stacktrace":"#0"}}';
    grid.launcher.upstream().respond = () => ({
      status: 404,
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-from-browser': 'yes' },
      body: noSuchElement,
    });
    for (const response of [
      await fetch(
        `${grid.origin}/session/${id}/element`,
        jsonRequest('POST', { using: 'css selector', value: 'x' }),
      ),
      await grid.app.request(
        `/session/${id}/element`,
        jsonRequest('POST', { using: 'css selector', value: 'x' }),
      ),
    ]) {
      expect(response.status).toBe(404);
      expect(response.headers.get('x-from-browser')).toBe('yes');
      expect(await response.text()).toBe(noSuchElement);
    }
    expect(grid.launcher.stops).toEqual([]);
    expect(await grid.sessions.inUse()).toEqual({ local: 1 });
  });
});
