/** A browser that exited without being stopped (a local one, or a container): its session is over. */
import type { GridDeps } from '../core/grid-deps';
import { endSession } from './end-session';

export function endSessionOfExitedBrowser(deps: GridDeps, handle: string, exit: object): void {
  deps.logger.log('BROWSER_EXITED', { handle, ...exit });
  // The store may be down just now: the session then ends at its idle timeout, by the sweep.
  deps.sessions
    .running()
    .then((running) => {
      const record = running.find((r) => r.handle === handle);
      if (record) return endSession(deps, record, 'browser exited');
    })
    .catch((error: unknown) =>
      deps.logger.log('BACKGROUND_TASK_FAILED', { task: 'browser exit', handle, error: String(error) }),
    );
}
