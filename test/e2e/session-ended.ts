/** Shared e2e check: after a client quits, its session's browser is gone and the grid logged its whole life. */
import { expect } from 'vitest';
import type { TestGrid } from '../support/grid-fixture';
import { processGroupAlive } from '../support/processes';

/** What the signed session ID says about the session: its key and the chromedriver's process group. */
export function sessionClaims(grid: TestGrid, sessionId: string) {
  const check = grid.deps.tokens.verify(sessionId, 'guest');
  if (!check.ok) throw new Error(`gridgate handed out a session ID it does not accept: ${check.reason}`);
  return check.claims;
}

/** Call once the client has quit: the DELETE answer comes only after the browser was stopped. */
export async function expectSessionEnded(grid: TestGrid, sessionId: string): Promise<void> {
  const { key, handle } = sessionClaims(grid, sessionId);
  expect(grid.launcher.running()).toEqual([]);
  expect(processGroupAlive(Number(handle))).toBe(false);
  const events = grid.logger.lines.filter((line) => line.fields.session === key).map((line) => line.event);
  expect(events).toEqual(['SESSION_REQUESTED', 'SESSION_CREATED', 'SESSION_DELETED']);
  // The ID is still correctly signed, yet the grid now says the session is over.
  const response = await fetch(`${grid.url}/session/${sessionId}/url`);
  expect(response.status).toBe(404);
  expect(((await response.json()) as { value: { error: string } }).value.error).toBe('invalid session id');
}
