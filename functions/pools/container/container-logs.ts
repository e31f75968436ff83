/**
 * Container sessions' artifacts: while a session runs, its log (`/logs/{id}.log`) is the container's own output
 * as `podman logs` gives it (a docker-selenium image's Selenium server, a chromedriver image's driver); once it
 * ended, its video and the log copied before its container went are served from where local sessions' recordings
 * are kept (session-recorder.ts), by `recording.keep` and the retention like theirs.
 */
import type { ArtifactSource } from '../../core/artifact-ports';
import type { ContainerLauncher } from './container-launcher';

export function containerArtifacts(launcher: ContainerLauncher, kept?: ArtifactSource): ArtifactSource {
  return {
    async find(session, kind, ask) {
      const body = kind === 'log' ? launcher.logs(session.handle) : undefined;
      if (body)
        return {
          kind: 'stream',
          status: 200,
          headers: { 'content-type': 'text/plain; charset=utf-8' },
          body,
        };
      return kept?.find(session, kind, ask);
    },
    ...(kept?.remove ? { remove: kept.remove.bind(kept) } : {}),
    ...(kept?.recorded ? { recorded: kept.recorded.bind(kept) } : {}),
  };
}
