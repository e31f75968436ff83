/**
 * A SessionStore that fails on demand: the memory store behind it, and the calls a test names refused
 * as a throttled DynamoDB call is (storeError: 503, Retry-After), so every path meets the error a real
 * outage gives it. A call can also be carried out and then refused, as a write DynamoDB applied is when
 * its answer is lost (cut, or past the client's request timeout) or when the SDK's retry of it is
 * throttled after an earlier attempt went through: the caller cannot tell it from one that failed.
 */
import { storeError } from '../../functions/adapters/aws/dynamo-store-error';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { ASYNC_STORE_CALLS, type AsyncStoreCall, type SessionStore } from '../../functions/core/ports';

type AsyncMethod = AsyncStoreCall;

export const EVERY_STORE_CALL: readonly AsyncMethod[] = ASYNC_STORE_CALLS;

export class FlakyStore implements SessionStore {
  /** The calls refused now; empty: the store works. */
  failing = new Set<AsyncMethod>();
  /** The calls carried out and then refused now. */
  appliedThenFailing = new Set<AsyncMethod>();
  /** How many calls were refused so far. */
  refused = 0;
  /** How many calls of each were asked so far, refused or not. */
  readonly calls: Partial<Record<AsyncMethod, number>> = {};

  /** `inner`: the store behind it, which several FlakyStores (several heads) may share. */
  constructor(readonly inner = new MemorySessionStore()) {}

  private async guard<T>(method: AsyncMethod, call: () => Promise<T>): Promise<T> {
    this.calls[method] = (this.calls[method] ?? 0) + 1;
    if (this.appliedThenFailing.has(method)) await call();
    else if (!this.failing.has(method)) return call();
    this.refused++;
    throw storeError('flaky', Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
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
  mark: SessionStore['mark'] = (...args) => this.guard('mark', () => this.inner.mark(...args));
  recordedSessions: SessionStore['recordedSessions'] = () =>
    this.guard('recordedSessions', () => this.inner.recordedSessions());
  markReclaimed: SessionStore['markReclaimed'] = (...args) =>
    this.guard('markReclaimed', () => this.inner.markReclaimed(...args));
  reclaimed: SessionStore['reclaimed'] = (...args) =>
    this.guard('reclaimed', () => this.inner.reclaimed(...args));
  touch: SessionStore['touch'] = (...args) => this.inner.touch(...args);
}
