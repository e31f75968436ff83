/**
 * The one cdk-nag finding every Fargate task definition of the stack raises the same way: its execution
 * role may call ecr:GetAuthorizationToken on "*", which Fargate needs to pull the image and which has no
 * resource-level permissions. Browser tasks and router heads both acknowledge it here.
 */

import { Validations } from 'aws-cdk-lib';
import type { FargateTaskDefinition } from 'aws-cdk-lib/aws-ecs';

export function acknowledgeImagePull(definition: FargateTaskDefinition): void {
  Validations.of(definition.obtainExecutionRole()).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'ecr:GetAuthorizationToken, which Fargate needs to pull the image, has no resource-level permissions.',
  });
}
