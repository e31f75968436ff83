/**
 * Seekable OCI (SOCI) for the browser images the stack builds into ECR: with a SOCI index beside an image,
 * Fargate starts the container before the image is fully pulled and fetches the rest as it is read ("Lazy
 * loading container images using Seekable OCI", Amazon ECS Developer Guide: for images over 250 MB, on Fargate
 * platform 1.4.0). deploy-time-build's SociIndexV2Build makes the index at deploy time: a CodeBuild project
 * downloads soci-wrapper from GitHub, builds a SOCI v2 index for the pushed image and pushes the image with the
 * index under a new tag, which the task definition then names (the deployment waits for it).
 *
 * Off unless `-c soci=true` (deploy-options.ts): it adds a CodeBuild project and a Lambda function to the
 * stack and minutes to every deploy that changes an image, it fetches a tool from outside AWS while deploying,
 * and none of it could be run here; what a warm pool gives is verified and larger (docs/aws.md, "First day").
 */
import { type CfnResource, Stack, Validations } from 'aws-cdk-lib';
import { Project } from 'aws-cdk-lib/aws-codebuild';
import type { DockerImageAsset } from 'aws-cdk-lib/aws-ecr-assets';
import type { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import type { Construct } from 'constructs';
import { SociIndexV2Build } from 'deploy-time-build';

/** The image of `asset` with a SOCI index beside it; one index per asset, however many pools name it. */
export function sociIndexedImage(scope: Construct, asset: DockerImageAsset): ContainerImage {
  const id = `SociIndex-${asset.assetHash.slice(0, 16)}`;
  const build =
    (scope.node.tryFindChild(id) as SociIndexV2Build | undefined) ??
    SociIndexV2Build.fromDockerImageAsset(scope, id, asset);
  acknowledgeIndexBuilder(scope);
  return build.toEcsDockerImageCode();
}

/**
 * deploy-time-build's builder is one CodeBuild project and one Lambda function per stack (singletons at the
 * stack's root): what cdk-nag finds in them is acknowledged on them alone.
 */
function acknowledgeIndexBuilder(scope: Construct): void {
  const stack = Stack.of(scope);
  for (const child of stack.node.children) {
    const id = child.node.id;
    if (id.startsWith('DeployTimeBuildCustomResourceHandler')) {
      Validations.of(child).acknowledge(
        {
          id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
          reason: "deploy-time-build's custom-resource handler logs with the managed basic execution policy.",
        },
        {
          id: 'AwsSolutions-L1',
          reason: 'deploy-time-build pins its handler to nodejs22.x, a supported runtime.',
        },
      );
    }
    if (id.startsWith('SociIndexV2Build') && child instanceof Project) {
      const project = stack.getLogicalId(child.node.defaultChild as CfnResource);
      const arn = 'arn:<AWS::Partition>:<SERVICE>:<AWS::Region>:<AWS::AccountId>';
      Validations.of(child).acknowledge(
        {
          id: 'AwsSolutions-CB4',
          reason:
            "The index build reads only the browser image's layers, already in ECR; CodeBuild encrypts its artifacts with the AWS-managed key.",
        },
        {
          id: 'AwsSolutions-IAM5[Resource::*]',
          reason:
            'ecr:GetAuthorizationToken, which the build needs to push the indexed image, has no resource-level permissions.',
        },
        {
          id: `AwsSolutions-IAM5[Resource::${arn.replace('<SERVICE>', 'codebuild')}:report-group/<${project}>-*]`,
          reason: "CodeBuild's own grant: the report groups of this project only.",
        },
        {
          id: `AwsSolutions-IAM5[Resource::${arn.replace('<SERVICE>', 'logs')}:log-group:/aws/codebuild/<${project}>:*]`,
          reason: "CodeBuild's own grant: the log streams of this project's log group only.",
        },
      );
    }
  }
}
