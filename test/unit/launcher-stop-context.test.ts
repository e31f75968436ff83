/**
 * A stop without its context cannot be written: ECS and EKS find a browser by its pool (cluster, namespace),
 * so such a call could only log and leave the task or pod running. These are type-level checks: `npm run
 * typecheck` fails when a launcher's stop takes its context as optional again.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { Launcher, StopContext } from '../../functions/core/ports';
import type { EcsLauncher } from '../../functions/pools/ecs/ecs-launcher';
import type { EksLauncher } from '../../functions/pools/eks/eks-launcher';
import type { HubLauncher } from '../../functions/pools/hub/hub-launcher';

describe('Launcher.stop', () => {
  it('takes the stop’s context as a required argument, in the port and in the cloud and hub launchers', () => {
    expectTypeOf<Parameters<Launcher['stop']>>().toEqualTypeOf<[handle: string, context: StopContext]>();
    expectTypeOf<Parameters<EcsLauncher['stop']>>().toEqualTypeOf<[handle: string, context: StopContext]>();
    expectTypeOf<Parameters<EksLauncher['stop']>>().toEqualTypeOf<[handle: string, context: StopContext]>();
    expectTypeOf<Parameters<HubLauncher['stop']>>().toEqualTypeOf<[handle: string, context: StopContext]>();
  });

  it('refuses, at compile time, a call that names no pool', () => {
    const stopWithoutContext = (launcher: Launcher) =>
      // @ts-expect-error a stop that names no pool could leak an ECS task or an EKS pod
      launcher.stop('0123456789abcdef0123456789abcdef');
    expectTypeOf(stopWithoutContext).toBeFunction();
  });
});
