/**
 * A worker's launcher of one pool kind: the browsers run under the primary (it started them, it keeps
 * the warm ones), so a worker that ends a session (its browser found gone) asks the primary to stop it.
 * New sessions never start in a worker: the worker relays them to the primary.
 */
import type { PoolConfig } from '../../core/config';
import type { LaunchedBrowser, Launcher, StopContext } from '../../core/ports';
import type { PrimaryCalls } from './primary-calls';

export class PrimaryLauncher implements Launcher {
  constructor(
    private readonly calls: PrimaryCalls,
    private readonly poolKind: PoolConfig['kind'],
  ) {}

  start(): Promise<LaunchedBrowser> {
    return Promise.reject(new Error('new sessions start in the primary process, not in a worker'));
  }

  stop(handle: string, context: StopContext): Promise<void> {
    return this.calls.call({
      port: 'launcher',
      poolKind: this.poolKind,
      method: 'stop',
      args: [handle, context],
    });
  }
}
