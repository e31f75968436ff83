import { describe, expect, it } from 'vitest';
import { QueueTimeoutError, SlotQueue, type SlotTry, type Timers } from '../../functions/core/slot-queue';

/** Timers that fire only when the test moves time. */
class ManualTimers implements Timers {
  private now = 0;
  private next = 1;
  private readonly pending = new Map<number, { at: number; callback: () => void }>();

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { at: this.now + ms, callback });
    return id;
  }

  clearTimeout(timer: unknown): void {
    this.pending.delete(timer as number);
  }

  /** Moves time on, firing due timers in order and letting the promises they start settle. */
  async advance(ms: number): Promise<void> {
    const until = this.now + ms;
    for (;;) {
      const due = [...this.pending.entries()]
        .filter(([, timer]) => timer.at <= until)
        .sort(([, a], [, b]) => a.at - b.at)[0];
      if (!due) break;
      this.pending.delete(due[0]);
      this.now = due[1].at;
      due[1].callback();
      await settle();
    }
    this.now = until;
    await settle();
  }

  get size(): number {
    return this.pending.size;
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A pool of `capacity` slots the attempts take from; `free()` gives one back. */
class Slots {
  taken = 0;
  tries = 0;
  readonly triedBy: string[] = [];
  constructor(public capacity: number) {}

  attempt = (label: string) => async (): Promise<SlotTry<string, string>> => {
    this.tries++;
    this.triedBy.push(label);
    if (this.taken >= this.capacity) return { refused: `full (${this.capacity})` };
    this.taken++;
    return { taken: label };
  };

  free(): void {
    this.taken--;
  }
}

const RECHECK_MS = 1000;

function setup(capacity = 1) {
  const timers = new ManualTimers();
  const queue = new SlotQueue({ timers, recheckMs: RECHECK_MS });
  const slots = new Slots(capacity);
  const order: string[] = [];
  function take(label: string, user = 'alice', timeoutMs = 60_000, signal = new AbortController().signal) {
    const taking = queue.take(slots.attempt(label), { user, pools: ['local'], timeoutMs, signal });
    // Record the order of success; keep failures observable without unhandled rejections.
    const outcome = taking.then(
      (value) => {
        order.push(value);
        return value;
      },
      (error: unknown) => error,
    );
    return outcome;
  }
  /** Frees a slot and tells the queue, as releaseSlot does. */
  function release() {
    slots.free();
    queue.notify();
  }
  return { timers, queue, slots, order, take, release };
}

describe('SlotQueue', () => {
  it('takes a free slot at once, without waiting or timers', async () => {
    const { take, queue, timers } = setup(1);
    expect(await take('a')).toBe('a');
    expect(queue.lengths()).toEqual({ waiting: 0, byUser: {}, byPool: {} });
    expect(timers.size).toBe(0);
  });

  it('waits while full and proceeds as soon as a slot is released', async () => {
    const { take, release, queue, order } = setup(1);
    await take('first');
    const second = take('second');
    await settle();
    expect(queue.lengths()).toEqual({ waiting: 1, byUser: { alice: 1 }, byPool: { local: 1 } });
    expect(order).toEqual(['first']);
    release();
    expect(await second).toBe('second');
    expect(queue.lengths().waiting).toBe(0);
  });

  it('serves one user’s requests first in, first out', async () => {
    const { take, release, order } = setup(1);
    await take('held');
    const waiting = ['one', 'two', 'three'].map((label) => take(label));
    await settle();
    for (let i = 0; i < 3; i++) {
      release();
      await settle();
    }
    await Promise.all(waiting);
    expect(order).toEqual(['held', 'one', 'two', 'three']);
  });

  it('queues a new request behind the same user’s waiting ones even when a slot looks free', async () => {
    const { take, slots, release, order } = setup(1);
    await take('held');
    const first = take('first');
    await settle();
    // Capacity grows without a notify(): a newcomer must not overtake the request already waiting.
    slots.capacity = 2;
    const newcomer = take('newcomer');
    await settle();
    expect(order).toEqual(['held']);
    release();
    await Promise.all([first, newcomer]);
    expect(order).toEqual(['held', 'first', 'newcomer']);
  });

  it('wakes only the first waiter of each user; the next one tries when the first leaves', async () => {
    const { take, release, slots } = setup(1);
    await take('held', 'alice');
    const waiting = [take('a1', 'alice'), take('a2', 'alice'), take('a3', 'alice'), take('b1', 'bob')];
    await settle();
    slots.triedBy.length = 0;
    release();
    await settle();
    // alice's first took the slot, bob's first was refused, alice's second tried once it became first.
    expect(slots.triedBy).toEqual(['a1', 'b1', 'a2']);
    slots.capacity = 10;
    release();
    await Promise.all(waiting);
  });

  it('gives up after the timeout with the last refusal, leaving the queue', async () => {
    const { take, timers, queue } = setup(1);
    await take('held');
    const late = take('late', 'alice', 5000);
    await settle();
    await timers.advance(4999);
    expect(queue.lengths().waiting).toBe(1);
    await timers.advance(1);
    const error = await late;
    expect(error).toBeInstanceOf(QueueTimeoutError);
    expect(error).toMatchObject({ refusal: 'full (1)', timeoutMs: 5000 });
    expect(queue.lengths().waiting).toBe(0);
    expect(timers.size).toBe(0);
  });

  it('honours each request’s own (shorter) timeout', async () => {
    const { take, timers } = setup(1);
    await take('held');
    const patient = take('patient', 'alice', 60_000);
    const hasty = take('hasty', 'bob', 2000);
    await settle();
    await timers.advance(2000);
    expect(await hasty).toBeInstanceOf(QueueTimeoutError);
    await timers.advance(57_999);
    let patientDone = false;
    patient.then(
      () => {
        patientDone = true;
      },
      () => {},
    );
    await settle();
    expect(patientDone).toBe(false);
    await timers.advance(1);
    expect(await patient).toBeInstanceOf(QueueTimeoutError);
  });

  it('refuses at once with a timeout of 0, without queueing', async () => {
    const { take, queue, timers } = setup(1);
    await take('held');
    const error = await take('now', 'alice', 0);
    expect(error).toBeInstanceOf(QueueTimeoutError);
    expect(error).toMatchObject({ refusal: 'full (1)', timeoutMs: 0 });
    expect(queue.lengths().waiting).toBe(0);
    expect(timers.size).toBe(0);
  });

  it('gives a request that timed out behind its user’s own the head’s refusal', async () => {
    const { take, timers } = setup(1);
    await take('held');
    take('head', 'alice', 10_000).catch(() => {});
    await settle();
    const behind = await take('behind', 'alice', 0);
    expect(behind).toMatchObject({ refusal: 'full (1)' });
    await timers.advance(10_000);
  });

  it('leaves the queue when the client aborts, and takes no slot afterwards', async () => {
    const { take, release, queue, slots, timers, order } = setup(1);
    await take('held');
    const client = new AbortController();
    const gone = take('gone', 'alice', 60_000, client.signal);
    const next = take('next', 'alice');
    await settle();
    client.abort(new Error('client went away'));
    expect(await gone).toMatchObject({ message: 'client went away' });
    expect(queue.lengths()).toEqual({ waiting: 1, byUser: { alice: 1 }, byPool: { local: 1 } });
    release();
    expect(await next).toBe('next');
    expect(order).toEqual(['held', 'next']);
    expect(slots.taken).toBe(1);
    expect(timers.size).toBe(0);
  });

  it('rejects at once for a signal aborted before it starts', async () => {
    const { take, slots } = setup(1);
    const client = new AbortController();
    client.abort(new Error('already gone'));
    expect(await take('x', 'alice', 1000, client.signal)).toMatchObject({ message: 'already gone' });
    expect(slots.tries).toBe(0);
  });

  it('returns a slot taken while the deadline passes, never dropping it', async () => {
    const timers = new ManualTimers();
    const queue = new SlotQueue({ timers, recheckMs: RECHECK_MS });
    let answer: (value: SlotTry<string, string>) => void = () => {};
    let calls = 0;
    const attempt = () => {
      calls++;
      if (calls === 1) return Promise.resolve<SlotTry<string, string>>({ refused: 'full' });
      return new Promise<SlotTry<string, string>>((resolve) => {
        answer = resolve;
      });
    };
    const taking = queue.take(attempt, {
      user: 'alice',
      pools: [],
      timeoutMs: 500,
      signal: new AbortController().signal,
    });
    await settle();
    queue.notify(); // a try starts and hangs
    await settle();
    await timers.advance(500); // the deadline passes during the try
    answer({ taken: 'slot' });
    expect(await taking).toBe('slot');
    expect(queue.lengths().waiting).toBe(0);
  });

  it('tries again when a slot frees while a try is under way', async () => {
    const timers = new ManualTimers();
    const queue = new SlotQueue({ timers, recheckMs: 60_000 });
    let free = false;
    let answer: (value: SlotTry<string, string>) => void = () => {};
    let calls = 0;
    const attempt = () => {
      calls++;
      if (calls === 2) return new Promise<SlotTry<string, string>>((resolve) => (answer = resolve));
      return Promise.resolve<SlotTry<string, string>>(free ? { taken: 'slot' } : { refused: 'full' });
    };
    const taking = queue.take(attempt, {
      user: 'alice',
      pools: [],
      timeoutMs: 30_000,
      signal: new AbortController().signal,
    });
    await settle();
    queue.notify(); // try 2 starts and hangs
    await settle();
    free = true;
    queue.notify(); // arrives during try 2
    answer({ refused: 'full' }); // try 2 saw the old state
    expect(await taking).toBe('slot');
    expect(calls).toBe(3);
  });

  it('catches a slot freed between the first refusal and joining the line', async () => {
    const timers = new ManualTimers();
    const queue = new SlotQueue({ timers, recheckMs: 60_000 });
    let calls = 0;
    const attempt = async (): Promise<SlotTry<string, string>> => {
      calls++;
      if (calls === 1) {
        queue.notify(); // a release lands while the first try is answering "full"
        return { refused: 'full' };
      }
      return { taken: 'slot' };
    };
    const taking = queue.take(attempt, {
      user: 'alice',
      pools: [],
      timeoutMs: 30_000,
      signal: new AbortController().signal,
    });
    await settle();
    expect(await taking).toBe('slot');
  });

  it('re-checks on its own every recheckMs, for slots freed where no notify() reaches', async () => {
    const { take, slots, timers } = setup(1);
    await take('held');
    const waiting = take('waiting');
    await settle();
    slots.free(); // freed by another router instance: no notify()
    await timers.advance(RECHECK_MS - 1);
    expect(slots.taken).toBe(0);
    await timers.advance(1);
    expect(await waiting).toBe('waiting');
  });

  it('rejects with the store’s error when a try throws, leaving the queue', async () => {
    const timers = new ManualTimers();
    const queue = new SlotQueue({ timers, recheckMs: RECHECK_MS });
    let calls = 0;
    const attempt = async (): Promise<SlotTry<string, string>> => {
      if (++calls === 1) return { refused: 'full' };
      throw new Error('table on fire');
    };
    const taking = queue
      .take(attempt, { user: 'alice', pools: [], timeoutMs: 5000, signal: new AbortController().signal })
      .catch((error: unknown) => error);
    await settle();
    queue.notify();
    expect(await taking).toMatchObject({ message: 'table on fire' });
    expect(queue.lengths().waiting).toBe(0);
    expect(timers.size).toBe(0);
  });

  it('counts waiting requests per user and per pool', async () => {
    const { queue, timers } = setup(0);
    const never = async (): Promise<SlotTry<string, string>> => ({ refused: 'full' });
    const signal = new AbortController().signal;
    const wait = (user: string, pools: string[]) =>
      queue.take(never, { user, pools, timeoutMs: 1000, signal }).catch(() => undefined);
    const all = [wait('alice', ['a']), wait('alice', ['a', 'b']), wait('bob', ['b'])];
    await settle();
    expect(queue.lengths()).toEqual({ waiting: 3, byUser: { alice: 2, bob: 1 }, byPool: { a: 2, b: 2 } });
    await timers.advance(1000);
    await Promise.all(all);
    expect(queue.lengths().waiting).toBe(0);
  });
});
