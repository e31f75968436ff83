/**
 * The launcher port is two members: every feature only some kinds have (warm counts, file transfer, host-path
 * bounds, session opening, DevTools doors, noVNC origins, abandoned sessions, a way into the browsers' network,
 * a session ended by the stop alone) is a part of the kind's runtime
 * (core/pool-runtime.ts), so no launcher stubs another kind's feature. Type-level: `npm run typecheck` fails
 * when a member is added to the port again.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { PoolRuntime } from '../../functions/core/pool-runtime';
import type { Launcher } from '../../functions/core/ports';

describe('Launcher', () => {
  it('is start and stop only', () => {
    expectTypeOf<keyof Launcher>().toEqualTypeOf<'start' | 'stop'>();
  });

  it('leaves each kind’s own features to its runtime’s optional parts', () => {
    expectTypeOf<keyof PoolRuntime>().toEqualTypeOf<
      | 'launcher'
      | 'warm'
      | 'files'
      | 'hostPaths'
      | 'opener'
      | 'devtools'
      | 'vnc'
      | 'abandoned'
      | 'network'
      | 'ending'
    >();
    expectTypeOf<PoolRuntime>().toMatchTypeOf<{ launcher: Launcher }>();
  });
});
