import { describe, expect, it } from 'vitest';
import { sessionNotCreated, WebDriverError } from '../../functions/core/errors';
import { clientFacingFailure } from '../../functions/servers/node/socket-session-failure';
import { CollectingLogger } from '../support/fakes';

const facts = { path: '/playwright/chromium', session: 'k1', pool: 'local' };

describe('clientFacingFailure', () => {
  it("passes gridgate's own refusal on as it is, with nothing to log", () => {
    const logger = new CollectingLogger();
    const refusal = sessionNotCreated('"0.x" is not a Playwright version');
    expect(clientFacingFailure(refusal, logger, facts)).toBe(refusal);
    expect(logger.lines).toEqual([]);
  });

  it('answers with the refusal and logs its cause, which the client never sees', () => {
    const logger = new CollectingLogger();
    const cause = new Error('at listen (/srv/gridgate/listen-in-namespace.cjs:12:3)');
    const refusal = sessionNotCreated('the Playwright server for the session exited', { cause });
    const answer = clientFacingFailure(refusal, logger, facts);
    expect(answer.toBody().value.message).toBe('the Playwright server for the session exited');
    expect(logger.fieldsOf('REQUEST_FAILED')).toEqual([
      {
        ...facts,
        error: 'the Playwright server for the session exited',
        cause: `Error: ${cause.message}`,
        stack: cause.stack,
      },
    ]);
  });

  it('answers an unexpected error with a generic unknown error, and logs it', () => {
    const logger = new CollectingLogger();
    const error = new Error("ENOENT: no such file or directory, readlink '/proc/4242/ns/net'");
    const answer = clientFacingFailure(error, logger, { path: '/playwright/chromium' });
    expect(answer).toBeInstanceOf(WebDriverError);
    expect(answer.status).toBe(500);
    expect(answer.toBody().value).toEqual({
      error: 'unknown error',
      message: 'gridgate failed to open this session’s socket; its log says why',
      stacktrace: '',
    });
    expect(logger.fieldsOf('REQUEST_FAILED')).toEqual([
      { path: '/playwright/chromium', error: String(error), stack: error.stack },
    ]);
  });
});
