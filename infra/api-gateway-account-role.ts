/**
 * The account-level API Gateway CloudWatch role a REST stage with access logs needs: without one,
 * `AWS::ApiGateway::Stage` fails with "CloudWatch Logs role ARN must be set in account settings to enable
 * logging" in a fresh account or Region. CDK's own `cloudWatchRole: true` writes `AWS::ApiGateway::Account`,
 * which replaces whatever role is set and is shared by every API in the Region; this sets the stack's role
 * only when none is set (infra/api-gateway-account-role-handler.ts) and leaves the setting, and the role,
 * when the stack is deleted, since other APIs may log through it by then.
 */
import { join } from 'node:path';
import { Aws, CustomResource, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, LoggingFormat, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { acknowledgeManagedPolicies, ROOT } from './grid-function';

export const ACCOUNT_ROLE_RESOURCE_TYPE = 'Custom::ApiGatewayAccountCloudWatchRole';

export class ApiGatewayAccountRole extends Construct {
  /** The role this stack offers; the account keeps an earlier one if it had one. */
  readonly role: Role;
  /** Depend on this before creating a stage that logs. */
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.role = new Role(this, 'CloudWatchRole', {
      description: 'API Gateway: push access and execution logs to CloudWatch Logs (account setting)',
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      managedPolicies: [
        ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs'),
      ],
    });
    // The account may point at it after the stack is gone.
    this.role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        "AWS's policy for exactly this role (API Gateway's account-level CloudWatch role), as the API Gateway guide gives it; it can only create and write log groups and streams.",
    });

    const setter = new NodejsFunction(this, 'Setter', {
      entry: join(ROOT, 'infra/api-gateway-account-role-handler.ts'),
      handler: 'handler',
      description: 'gridgate: set the API Gateway CloudWatch role of the account, only when none is set',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      // UpdateAccount is retried for up to 2 minutes while IAM propagates a new role.
      timeout: Duration.minutes(3),
      memorySize: 256,
      loggingFormat: LoggingFormat.TEXT,
      logGroup: new LogGroup(this, 'SetterLogs', { retention: RetentionDays.ONE_MONTH }),
      projectRoot: ROOT,
      depsLockFilePath: join(ROOT, 'package-lock.json'),
      bundling: { format: OutputFormat.ESM, target: 'node22', minify: true, forceDockerBundling: false },
    });
    acknowledgeManagedPolicies(setter);
    const account = `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}::/account`;
    setter.addToRolePolicy(
      new PolicyStatement({ actions: ['apigateway:GET', 'apigateway:PATCH'], resources: [account] }),
    );
    setter.addToRolePolicy(
      new PolicyStatement({ actions: ['iam:PassRole'], resources: [this.role.roleArn] }),
    );

    this.resource = new CustomResource(this, 'Setting', {
      serviceToken: setter.functionArn,
      resourceType: ACCOUNT_ROLE_RESOURCE_TYPE,
      properties: { RoleArn: this.role.roleArn },
    });
    // The setter needs its own role's policy in place before CloudFormation invokes it.
    this.resource.node.addDependency(setter);
  }
}
