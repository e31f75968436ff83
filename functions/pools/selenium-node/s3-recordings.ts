/**
 * ecs and eks sessions' recordings in the recordings bucket: videos where the pool's recorder uploaded them as
 * `videos/{session key}.mp4` (the key gridgate gave it as se:videoName), and eks sessions' browser logs where
 * the launcher kept them when the pod was stopped, `logs/{session key}.log` (pod-log-keys.ts). A HeadObject
 * says whether one is there, and the owner gets a presigned GET valid for a few minutes, signed here with the
 * router's own credentials (no call to AWS). S3 errors are translated here: a missing object is "none",
 * anything else a W3C error. Which kinds a pool's sessions are asked here for is the caller's choice (ecs
 * logs are in CloudWatch Logs).
 */
import { GetObjectCommand, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Artifact, ArtifactKind, ArtifactSession, ArtifactSource } from '../../core/artifact-ports';
import { WebDriverError } from '../../core/errors';
import { logKey } from './pod-log-keys';
import { VIDEO_PREFIX } from './recorder-environment';
/** How long a presigned link works: enough to start a download or a player, short enough not to be shared. */
export const PRESIGNED_SECONDS = 300;

/** The object key of a session's video. */
export function videoKey(sessionKey: string): string {
  return `${VIDEO_PREFIX}${sessionKey}.mp4`;
}

/** Each kind's object and how the presigned GET answers it. */
const OBJECTS: Partial<
  Record<ArtifactKind, { key: (sessionKey: string) => string; type: string; extension: string }>
> = {
  video: { key: videoKey, type: 'video/mp4', extension: 'mp4' },
  log: { key: logKey, type: 'text/plain; charset=utf-8', extension: 'log' },
};

export class S3Recordings implements ArtifactSource {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async find(session: ArtifactSession, kind: ArtifactKind | 'screenshot'): Promise<Artifact | undefined> {
    // Console logs and HARs are captured by local pools only.
    const object = kind === 'screenshot' ? undefined : OBJECTS[kind];
    if (!object) return undefined;
    const target = { Bucket: this.bucket, Key: object.key(session.key) };
    try {
      await this.s3.send(new HeadObjectCommand(target));
    } catch (error) {
      // HeadObject answers a missing key with 404 NotFound (403 without s3:ListBucket, which the router lacks).
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404 || status === 403) return undefined;
      throw new WebDriverError('unknown error', `the recordings bucket did not answer: ${String(error)}`, {
        status: 502,
        cause: error,
      });
    }
    const location = await getSignedUrl(
      this.s3,
      new GetObjectCommand({
        ...target,
        ResponseContentType: object.type,
        ResponseContentDisposition: `inline; filename="${session.key}.${object.extension}"`,
      }),
      { expiresIn: PRESIGNED_SECONDS },
    );
    return { kind: 'redirect', location };
  }
}
