/**
 * One artifact source of a pool kind made of one source per artifact kind, for kinds that keep each
 * elsewhere (ecs: videos in the recordings bucket, logs in CloudWatch Logs). A kind with no source has none.
 */
import type { ArtifactKind, ArtifactSource } from '../../core/artifact-ports';

export function artifactsByKind(sources: Partial<Record<ArtifactKind, ArtifactSource>>): ArtifactSource {
  return {
    async find(session, kind, ask) {
      const source = kind === 'screenshot' ? undefined : sources[kind];
      return source?.find(session, kind, ask);
    },
  };
}
