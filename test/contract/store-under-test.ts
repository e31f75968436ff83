/** The store each test of the SessionStore contract gets: made fresh by the adapter's factory, disposed of after. */
import { afterEach, beforeEach } from 'vitest';
import type { SessionStore } from '../../functions/core/ports';

export interface StoreUnderTest {
  store: SessionStore;
  /** Frees what the store holds (tables, connections); optional. */
  dispose?: () => Promise<void>;
}

export type StoreFactory = () => SessionStore | StoreUnderTest | Promise<SessionStore | StoreUnderTest>;

/** Before each test of the enclosing describe, makes a store and hands it to `use`; disposes of it after. */
export function freshStoreEachTest(factory: StoreFactory, use: (store: SessionStore) => void): void {
  let dispose: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    const made = await factory();
    if ('store' in made) {
      use(made.store);
      dispose = made.dispose;
    } else {
      use(made);
      dispose = undefined;
    }
  });
  afterEach(async () => {
    await dispose?.();
  });
}
