/**
 * A container session's log (`/logs/{id}.log`): the container's own output, as `podman logs` gives it (a
 * docker-selenium image's Selenium server, a chromedriver image's driver), streamed while the session runs.
 * The container goes with its session, and its log with it: nothing is kept after the end.
 */
import type { ArtifactSource } from '../../core/artifact-ports';
import type { ContainerLauncher } from './container-launcher';

export function containerLogs(launcher: ContainerLauncher): ArtifactSource {
  return {
    async find(session, kind) {
      if (kind !== 'log') return undefined;
      const body = launcher.logs(session.handle);
      if (!body) return undefined;
      return { kind: 'stream', status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body };
    },
  };
}
