/**
 * The chromedriver launcher of a Node server's local pools, for tests that look at the browsers it runs: every
 * Node server wires the local kind (a reload may add a local pool), so its runtime is always there.
 */
import type { GridDeps } from '../../functions/core/grid-deps';
import type { ChromedriverLauncher } from '../../functions/pools/local/chromedriver-launcher';

export function localLauncherOf(deps: GridDeps): ChromedriverLauncher {
  const launcher = deps.runtimes.local?.launcher;
  if (!launcher) throw new Error('this grid has no local pools');
  return launcher as ChromedriverLauncher;
}
