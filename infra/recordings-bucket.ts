/**
 * The S3 bucket ecs and eks sessions' videos go to, and eks sessions' browser logs (kept when their pods are
 * stopped): private (every public access blocked, ACLs off), encrypted at rest (SSE-S3) and in transit (SSL
 * enforced), each object expiring after the config's recording retention. Tasks and pods may only put objects
 * under videos/; the functions that stop eks pods only under logs/; the router may only read both (to check
 * one exists and sign a short-lived URL for its owner); the cleanup may delete videos sessions were not to
 * keep (recording.keep: failed). Nothing else is granted.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { LOG_PREFIX } from '../functions/pools/selenium-node/pod-log-keys';
import { VIDEO_PREFIX } from '../functions/pools/selenium-node/recorder-environment';

export interface RecordingsBucketProps {
  /** How long a video is kept: S3 expires it the first midnight (UTC) after this many whole days, at least 1. */
  retention: Duration;
  /** @default RemovalPolicy.RETAIN (a stack deleted by mistake keeps the videos until they expire) */
  removalPolicy?: RemovalPolicy;
  /** eks pods' browser logs are kept under logs/ too (some eks pool has a recorder). @default false */
  podLogs?: boolean;
}

export class RecordingsBucket extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: RecordingsBucketProps) {
    super(scope, id);
    // S3 lifecycle expiration counts whole days (PutBucketLifecycleConfiguration, Expiration Days ≥ 1).
    const expiration = Duration.days(Math.max(1, Math.ceil(props.retention.toDays({ integral: false }))));
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      lifecycleRules: [
        {
          id: 'expire-recordings',
          prefix: VIDEO_PREFIX,
          expiration,
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        // Kept pod logs go with the videos of the same sessions (one PutObject each: no multipart upload).
        ...(props.podLogs ? [{ id: 'expire-logs', prefix: LOG_PREFIX, expiration }] : []),
      ],
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Every read is through a presigned URL the router signs for the session owner and logs; an access-log bucket would store a second copy of that log for as long as the videos.',
    });
  }

  /** PutObject (and aborting its multipart uploads) under videos/ only: what the recorder's upload needs. */
  grantUpload(grantee: IGrantable): void {
    this.grantUnder(VIDEO_PREFIX, grantee, ['s3:PutObject', 's3:AbortMultipartUpload']);
  }

  /** PutObject under logs/ only: what a function that stops eks pods needs to keep their browser logs. */
  grantLogUpload(grantee: IGrantable): void {
    this.grantUnder(LOG_PREFIX, grantee, ['s3:PutObject']);
  }

  /**
   * DeleteObject under videos/ only: what the cleanup needs to delete the videos sessions were not to keep
   * (functions/use-cases/delete-unkept-videos.ts), once their recorders have uploaded them.
   */
  grantVideoDeletion(grantee: IGrantable): void {
    this.grantUnder(VIDEO_PREFIX, grantee, ['s3:DeleteObject']);
  }

  /**
   * GetObject under videos/ (and logs/, with `logs`) only: HeadObject to see one exists, and the presigned
   * GET people follow.
   */
  grantRead(grantee: IGrantable, { logs = false }: { logs?: boolean } = {}): void {
    this.grantUnder(VIDEO_PREFIX, grantee, ['s3:GetObject']);
    if (logs) this.grantUnder(LOG_PREFIX, grantee, ['s3:GetObject']);
  }

  private grantUnder(prefix: string, grantee: IGrantable, actions: string[]): void {
    Grant.addToPrincipal({ grantee, actions, resourceArns: [this.bucket.arnForObjects(`${prefix}*`)] });
    if (Construct.isConstruct(grantee)) {
      Validations.of(grantee).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${this.logicalId}.Arn>/${prefix}*]`,
        reason: `Each session names its own object when it ends; the wildcard is the ${prefix} prefix of this bucket only.`,
      });
    }
  }

  private get logicalId(): string {
    return this.bucket.stack.getLogicalId(this.bucket.node.defaultChild as never);
  }
}
