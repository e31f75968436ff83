/**
 * The S3 bucket ecs and eks sessions' videos go to: private (every public access blocked, ACLs off), encrypted
 * at rest (SSE-S3) and in transit (SSL enforced), each video expiring after the config's recording retention.
 * Tasks and pods may only put objects under videos/; the router may only read them (to check one exists and
 * sign a short-lived URL for its owner). Nothing else is granted.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { VIDEO_PREFIX } from '../functions/adapters/aws/recorder-environment';

export interface RecordingsBucketProps {
  /** How long a video is kept: S3 expires it the first midnight (UTC) after this many whole days, at least 1. */
  retention: Duration;
  /** @default RemovalPolicy.RETAIN (a stack deleted by mistake keeps the videos until they expire) */
  removalPolicy?: RemovalPolicy;
}

export class RecordingsBucket extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: RecordingsBucketProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      // S3 lifecycle expiration counts whole days (PutBucketLifecycleConfiguration, Expiration Days ≥ 1).
      lifecycleRules: [
        {
          id: 'expire-recordings',
          prefix: VIDEO_PREFIX,
          expiration: Duration.days(Math.max(1, Math.ceil(props.retention.toDays({ integral: false })))),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
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
    this.grantOnVideos(grantee, ['s3:PutObject', 's3:AbortMultipartUpload']);
  }

  /** GetObject under videos/ only: HeadObject to see a video exists, and the presigned GET people follow. */
  grantRead(grantee: IGrantable): void {
    this.grantOnVideos(grantee, ['s3:GetObject']);
  }

  private grantOnVideos(grantee: IGrantable, actions: string[]): void {
    Grant.addToPrincipal({ grantee, actions, resourceArns: [this.bucket.arnForObjects(`${VIDEO_PREFIX}*`)] });
    if (Construct.isConstruct(grantee)) {
      Validations.of(grantee).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${this.logicalId}.Arn>/${VIDEO_PREFIX}*]`,
        reason:
          'Each session names its own video object when it ends; the wildcard is the videos/ prefix of this bucket only.',
      });
    }
  }

  private get logicalId(): string {
    return this.bucket.stack.getLogicalId(this.bucket.node.defaultChild as never);
  }
}
