/** The ways a test's marks are read (se/event, executor scripts, capabilities, the page's PUT) and merged. */
import { describe, expect, it } from 'vitest';
import { WebDriverError } from '../../functions/core/errors';
import { executorMarks, isExecutorScript } from '../../functions/core/executor-scripts';
import { parseMarksBody } from '../../functions/core/marks-request';
import { eventMarks, parseSessionEvent } from '../../functions/core/session-event';
import { groupingAsked } from '../../functions/core/test-grouping';
import { LABELS_MAX, withMarks } from '../../functions/core/test-marks';

function refusal(run: () => unknown): WebDriverError {
  try {
    run();
  } catch (error) {
    if (error instanceof WebDriverError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('session events', () => {
  it.each([
    ['test:failed', { result: { status: 'failed', reason: 'boom' } }],
    ['test:error', { result: { status: 'failed', reason: 'boom' } }],
    ['test:passed', { result: { status: 'passed', reason: 'boom' } }],
    ['log:collect', {}],
  ])('reads %s', (eventType, marks) => {
    expect(eventMarks(parseSessionEvent(JSON.stringify({ eventType, payload: { error: 'boom' } })))).toEqual(
      marks,
    );
  });

  it('takes the event type as Grid does: a letter, then letters, digits and :._-', () => {
    expect(parseSessionEvent('{"eventType":"a:b.c_d-9"}').eventType).toBe('a:b.c_d-9');
    for (const eventType of ['', '9a', ':a', 'a b', 'a/b', 'é']) {
      expect(refusal(() => parseSessionEvent(JSON.stringify({ eventType }))).code).toBe('invalid argument');
    }
  });
});

describe('executor scripts', () => {
  it('knows them by their first characters only', () => {
    expect(isExecutorScript('sauce:job-result=passed')).toBe(true);
    expect(isExecutorScript('browserstack_executor: {}')).toBe(true);
    expect(isExecutorScript('lambda-status=failed')).toBe(true);
    expect(isExecutorScript('lambda-other=1')).toBe(false);
    expect(isExecutorScript('return "sauce:job-result=passed"')).toBe(false);
  });

  it('reads Sauce Labs’ tags as labels without a value', () => {
    expect(executorMarks('sauce:job-tags=smoke, cart')).toEqual({ labels: { smoke: '', cart: '' } });
  });

  it('keeps no result for LambdaTest’s skipped', () => {
    expect(executorMarks('lambda-status=skipped')).toEqual({});
  });

  it.each(['sauce:job-name=', 'lambda-status=green', 'browserstack_executor: []'])('refuses %s', (script) => {
    expect(refusal(() => executorMarks(script)).code).toBe('invalid argument');
  });
});

describe('grouping capabilities', () => {
  it('takes the first spelling given, gridgate’s own first', () => {
    expect(
      groupingAsked(
        {
          'sauce:options': { name: 'sauce', build: 'b-sauce', tags: ['smoke'] },
          'LT:Options': { project: 'p' },
        },
        { build: 'b-own' },
      ),
    ).toEqual({ name: 'sauce', build: 'b-own', project: 'p', labels: { smoke: '' } });
  });

  it('refuses a wrongly typed value', () => {
    expect(refusal(() => groupingAsked({ 'bstack:options': { buildName: 7 } }, undefined)).message).toMatch(
      'bstack:options.buildName must be a string',
    );
  });
});

describe('marks', () => {
  it('keep labels within their bound however often a session is marked', () => {
    let record: { labels?: Record<string, string> } = {};
    for (let i = 0; i < LABELS_MAX + 5; i++) record = withMarks(record, { labels: { [`l${i}`]: '' } });
    expect(Object.keys(record.labels ?? {})).toHaveLength(LABELS_MAX);
  });

  it('are read from Sauce Labs’ REST body too', () => {
    expect(parseMarksBody('{"passed": false}')).toEqual({ result: { status: 'failed' } });
    expect(refusal(() => parseMarksBody('{"passed": false, "status": "passed"}')).code).toBe(
      'invalid argument',
    );
  });
});
