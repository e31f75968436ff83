import { describe, expect, it } from 'vitest';
import { PasswordCheckQueue } from '../../functions/adapters/htpasswd/password-check-queue';
import { WebDriverError } from '../../functions/core/errors';

/** A runner whose checks finish when the test says, recording the order they started in. */
function heldRunner() {
  const started: string[] = [];
  const finish: (() => void)[] = [];
  const run = (password: string) => {
    started.push(password);
    return new Promise<boolean>((resolve) => finish.push(() => resolve(password === 'right')));
  };
  /** Finishes the oldest running check and lets the queue start the next. */
  const finishOne = async () => {
    finish.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { run, started, finishOne };
}

async function refusal(promise: Promise<unknown>): Promise<WebDriverError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(WebDriverError);
  return error as WebDriverError;
}

/** Checks a test starts and does not wait for. */
const background: Promise<unknown>[] = [];

describe('PasswordCheckQueue', () => {
  it('runs no more checks at once than it has runners, and the rest in turn', async () => {
    const runner = heldRunner();
    const queue = new PasswordCheckQueue(runner.run, { running: 2, waiting: 10, perClient: 10 });
    const answers = ['a', 'b', 'right'].map((password) => queue.check('10.0.0.1', password, 'hash'));
    expect(runner.started).toEqual(['a', 'b']);
    expect(queue.load).toEqual({ running: 2, waiting: 1 });
    await runner.finishOne();
    expect(runner.started).toEqual(['a', 'b', 'right']);
    await runner.finishOne();
    await runner.finishOne();
    expect(await Promise.all(answers)).toEqual([false, false, true]);
    expect(queue.load).toEqual({ running: 0, waiting: 0 });
  });

  it('lets clients take turns, so one sending many waits behind one sending few', async () => {
    const runner = heldRunner();
    const queue = new PasswordCheckQueue(runner.run, { running: 1, waiting: 10, perClient: 10 });
    for (const password of ['flood-1', 'flood-2', 'flood-3', 'flood-4'])
      background.push(queue.check('flooder', password, 'h'));
    const legitimate = queue.check('someone else', 'right', 'h');
    for (let i = 0; i < 2; i++) await runner.finishOne();
    // flood-1 was running; the other client's check came next, before flood-2.
    expect(runner.started).toEqual(['flood-1', 'right', 'flood-2']);
    expect(await legitimate).toBe(true);
  });

  it('refuses a client over its share with 429 and Retry-After, and serves other clients meanwhile', async () => {
    const runner = heldRunner();
    const queue = new PasswordCheckQueue(runner.run, { running: 1, waiting: 10, perClient: 2 });
    background.push(queue.check('flooder', 'x1', 'h'));
    background.push(queue.check('flooder', 'x2', 'h'));
    const error = await refusal(queue.check('flooder', 'x3', 'h'));
    expect(error.status).toBe(429);
    expect(error.headers).toEqual({ 'Retry-After': '1' });
    expect(error.toBody().value.error).toBe('unknown error');
    expect(error.message).toMatch(/too many sign-ins from this address/);
    const other = queue.check('other', 'right', 'h');
    expect(queue.load).toEqual({ running: 1, waiting: 2 });
    for (let i = 0; i < 3; i++) await runner.finishOne();
    expect(await other).toBe(true);
    // Its share is back once its checks are done.
    background.push(queue.check('flooder', 'x4', 'h'));
    expect(runner.started.at(-1)).toBe('x4');
  });

  it('refuses with 503 and Retry-After once the queue is full, whoever asks', async () => {
    const runner = heldRunner();
    const queue = new PasswordCheckQueue(runner.run, { running: 1, waiting: 2, perClient: 5 });
    for (const client of ['a', 'b', 'c']) background.push(queue.check(client, 'x', 'h'));
    const error = await refusal(queue.check('d', 'right', 'h'));
    expect(error.status).toBe(503);
    expect(error.headers).toEqual({ 'Retry-After': '1' });
    await runner.finishOne();
    // A place is free again.
    const later = queue.check('d', 'right', 'h');
    for (let i = 0; i < 3; i++) await runner.finishOne();
    expect(await later).toBe(true);
  });

  it('passes a failed check on and frees its place', async () => {
    const queue = new PasswordCheckQueue(async () => Promise.reject(new Error('thread died')), {
      running: 1,
      waiting: 0,
      perClient: 1,
    });
    await expect(queue.check('a', 'x', 'h')).rejects.toThrow('thread died');
    await expect(queue.check('a', 'x', 'h')).rejects.toThrow('thread died');
    expect(queue.load).toEqual({ running: 0, waiting: 0 });
  });
});
