/**
 * The environment of docker-selenium's video recorder (selenium/video) beside a cloud browser: an ecs task's
 * second container (infra/browser-fleet.ts) and an eks pod's (eks-pod-spec.ts) get the same, so both upload
 * to the same place under the same name and the router finds a video the same way (s3-recordings.ts).
 */

/** The recorder container's name in an ecs task and an eks pod, as in docker-selenium's Helm chart. */
export const RECORDER_CONTAINER = 'video';

/** Where the recorders put videos: `videos/{session key}.mp4` (the key gridgate gives as se:videoName). */
export const VIDEO_PREFIX = 'videos/';

export interface RecorderTarget {
  /** The browser container's WebDriver port, on the task's or pod's localhost. */
  port: number;
  /** The recordings bucket (a CloudFormation token in the CDK app). */
  bucket: string;
  region: string;
}

/**
 * It watches the browser's /status on localhost (a task's and a pod's containers share one network
 * namespace), records its X display while a session that asked (se:recordVideo, which gridgate sets) runs,
 * and uploads `{se:videoName}.mp4` with rclone to videos/ in the bucket, with the task's or pod's own role.
 */
export function recorderEnvironment({ port, bucket, region }: RecorderTarget): Record<string, string> {
  return {
    SE_VIDEO_RECORD_STANDALONE: 'true',
    DISPLAY_CONTAINER_NAME: 'localhost',
    SE_NODE_PORT: String(port),
    // The name gridgate gives (se:videoName: the session's key), without the recorder's ID suffix.
    SE_VIDEO_FILE_NAME: 'auto',
    SE_VIDEO_FILE_NAME_SUFFIX: 'false',
    SE_VIDEO_UPLOAD_ENABLED: 'true',
    SE_UPLOAD_DESTINATION_PREFIX: `s3://${bucket}/${VIDEO_PREFIX.slice(0, -1)}`,
    // rclone's S3 remote: the role's credentials from the environment's chain; no bucket check, no listing, no
    // HEAD after the upload (the role may only put objects); ACLs are off on the bucket, so only this one is
    // accepted.
    RCLONE_CONFIG_S3_TYPE: 's3',
    RCLONE_CONFIG_S3_PROVIDER: 'AWS',
    RCLONE_CONFIG_S3_ENV_AUTH: 'true',
    RCLONE_CONFIG_S3_REGION: region,
    RCLONE_CONFIG_S3_NO_CHECK_BUCKET: 'true',
    RCLONE_CONFIG_S3_NO_HEAD: 'true',
    RCLONE_CONFIG_S3_ACL: 'bucket-owner-full-control',
    SE_UPLOAD_OPTS: '--cutoff-mode SOFT --inplace --no-check-dest',
  };
}
