/**
 * A SessionStore that fails on demand: the memory store behind it, and the calls a test names refused
 * as a throttled DynamoDB call is (storeError: 503, Retry-After), so every path meets the error a real
 * outage gives it.
 */
import { storeError } from '../../functions/adapters/aws/dynamo-store-error';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { ASYNC_STORE_CALLS, type AsyncStoreCall, type SessionStore } from '../../functions/core/ports';

type AsyncMethod = AsyncStoreCall;

export const EVERY_STORE_CALL: readonly AsyncMethod[] = ASYNC_STORE_CALLS;

export class FlakyStore implements SessionStore {
  /** The calls refused now; empty: the store works. */
  failing = new Set<AsyncMethod>();
  /** How many calls were refused so far. */
  refused = 0;
  readonly inner = new MemorySessionStore();

  private guard<T>(method: AsyncMethod, call: () => Promise<T>): Promise<T> {
    if (!this.failing.has(method)) return call();
    this.refused++;
    return Promise.reject(
      storeError('flaky', Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' })),
    );
  }

  acquire: SessionStore['acquire'] = (...args) => this.guard('acquire', () => this.inner.acquire(...args));
  release: SessionStore['release'] = (...args) => this.guard('release', () => this.inner.release(...args));
  inUse: SessionStore['inUse'] = () => this.guard('inUse', () => this.inner.inUse());
  inUseByUser: SessionStore['inUseByUser'] = () => this.guard('inUseByUser', () => this.inner.inUseByUser());
  slots: SessionStore['slots'] = () => this.guard('slots', () => this.inner.slots());
  markStage: SessionStore['markStage'] = (...args) =>
    this.guard('markStage', () => this.inner.markStage(...args));
  add: SessionStore['add'] = (...args) => this.guard('add', () => this.inner.add(...args));
  get: SessionStore['get'] = (...args) => this.guard('get', () => this.inner.get(...args));
  running: SessionStore['running'] = () => this.guard('running', () => this.inner.running());
  end: SessionStore['end'] = (...args) => this.guard('end', () => this.inner.end(...args));
  markReclaimed: SessionStore['markReclaimed'] = (...args) =>
    this.guard('markReclaimed', () => this.inner.markReclaimed(...args));
  reclaimed: SessionStore['reclaimed'] = (...args) =>
    this.guard('reclaimed', () => this.inner.reclaimed(...args));
  touch: SessionStore['touch'] = (...args) => this.inner.touch(...args);
}
