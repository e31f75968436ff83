/**
 * Ending a session from the status page (DELETE /ui/api/sessions/{key}) through the whole app: its owner
 * and the admin may, nobody else; the browser is told, stopped and its slot freed.
 */
import { describe, expect, it } from 'vitest';
import type { SessionDetail } from '../../functions/http/ui/ui-views';
import { ALICE, BOB, GUEST, ROOT } from '../support/page-users';
import {
  expectPageError,
  newSessionAs,
  overviewAs,
  sessionApi,
  statusPageGrids,
} from '../support/status-page-grid';

const startGrid = statusPageGrids();

describe('DELETE /ui/api/sessions/{key}', () => {
  it('lets the owner end a session: the browser is told, stopped and the slot freed', async () => {
    const grid = startGrid();
    const key = await newSessionAs(grid, ALICE, 'alice');
    const upstream = grid.launcher.upstream();
    const handle = grid.launcher.started[0]?.handle;

    const response = await grid.app.request(sessionApi(key), { method: 'DELETE', headers: ALICE });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ value: null });
    expect(upstream.commands().map((command) => command.method)).toEqual(['DELETE']);
    expect(grid.launcher.stops).toEqual([handle]);
    expect(await grid.deps.sessions.inUse()).toEqual({});
    expect((await grid.deps.sessions.get(key))?.endReason).toBe('deleted');
    expect(grid.logger.fieldsOf('SESSION_DELETED')).toEqual([expect.objectContaining({ session: key })]);
    expect((await overviewAs(grid, ALICE)).sessions).toEqual([]);

    const detail = (await (await grid.app.request(sessionApi(key), { headers: ALICE })).json()) as {
      session: SessionDetail;
    };
    expect(detail.session.state).toBe('ended');
    expect(detail.session.events.at(-1)?.what).toBe('ended: deleted');
    await expectPageError(
      await grid.app.request(sessionApi(key), { method: 'DELETE', headers: ALICE }),
      404,
      'invalid session id',
      /already ended/,
    );
  });

  it('lets the admin end anyone’s session', async () => {
    const grid = startGrid();
    const key = await newSessionAs(grid, BOB, 'bob');
    expect((await grid.app.request(sessionApi(key), { method: 'DELETE', headers: ROOT })).status).toBe(200);
    expect((await grid.deps.sessions.get(key))?.endReason).toBe('deleted');
  });

  it('refuses everyone else with invalid session id and leaves the session running', async () => {
    const grid = startGrid();
    const key = await newSessionAs(grid, ALICE, 'alice');
    for (const headers of [BOB, GUEST]) {
      await expectPageError(
        await grid.app.request(sessionApi(key), { method: 'DELETE', headers }),
        404,
        'invalid session id',
      );
    }
    expect(grid.launcher.stops).toEqual([]);
    expect(grid.launcher.upstream().commands()).toEqual([]);
    expect((await grid.deps.sessions.get(key))?.endedAt).toBeUndefined();
  });

  it('still ends a session whose browser does not answer the DELETE', async () => {
    const grid = startGrid();
    const key = await newSessionAs(grid, ALICE, 'alice');
    await grid.launcher.upstream().close();
    expect((await grid.app.request(sessionApi(key), { method: 'DELETE', headers: ALICE })).status).toBe(200);
    expect((await grid.deps.sessions.get(key))?.endReason).toBe('deleted');
    expect(grid.logger.fieldsOf('UPSTREAM_ERROR')).toEqual([expect.objectContaining({ session: key })]);
  });
});
