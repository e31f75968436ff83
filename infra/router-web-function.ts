/**
 * The router as a Lambda Web Function: the Node server entry (functions/entry/node-server.ts) bundled by
 * esbuild with the config file beside it, serving HTTP itself on AWS_LAMBDA_HTTP_ENDPOINT, many requests
 * per environment, with VPC egress through a NetworkConnector.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Duration } from 'aws-cdk-lib';
import {
  Annotations,
  AssetHashType,
  BOOTSTRAP_QUALIFIER_CONTEXT,
  type CfnResource,
  DefaultStackSynthesizer,
  DockerImage,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import type { ISecurityGroup, ISubnet, IVpc } from 'aws-cdk-lib/aws-ec2';
import {
  NetworkConnector,
  NetworkConnectorComputeType,
  NetworkConnectorConfiguration,
  WebFunction,
  WebFunctionAuthType,
  WebFunctionCode,
  WebFunctionRuntime,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import {
  BUILT_IN_CONFIG,
  BUNDLED_CONFIG,
  BUNDLED_CONFIG_PATH,
  bundledUsersFile,
  ROOT,
} from './grid-function';

export interface RouterWebFunctionProps {
  vpc: IVpc;
  subnets: ISubnet[];
  securityGroup: ISecurityGroup;
  configFile?: string;
  usersFile?: string;
  environment: Record<string, string>;
  timeout: Duration;
  /** @default 128 */
  maxConcurrencyPerEnvironment?: number;
  logRetention?: RetentionDays;
}

const ENTRY_POINT = 'index.mjs';

export class RouterWebFunction extends Construct {
  readonly function: WebFunction;
  /** Where its log lines go (the dashboard reads ended sessions' costs there). */
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: RouterWebFunctionProps) {
    super(scope, id);
    const configFile = props.configFile ?? BUILT_IN_CONFIG;
    const copies = [[configFile, BUNDLED_CONFIG], ...bundledUsersFile(configFile, props.usersFile)];
    const connector = new NetworkConnector(this, 'Egress', {
      configuration: NetworkConnectorConfiguration.vpcEgress({
        computeType: NetworkConnectorComputeType.WEB_FUNCTION,
        vpc: props.vpc,
        vpcSubnets: { subnets: props.subnets },
        securityGroups: [props.securityGroup],
      }),
    });
    this.logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention ?? RetentionDays.ONE_MONTH });
    this.function = new WebFunction(this, 'Function', {
      runtime: WebFunctionRuntime.NODEJS_24_X,
      entryPoint: ENTRY_POINT,
      code: WebFunctionCode.fromAssetToManagedBucket(join(ROOT, 'functions'), {
        // Hash what is deployed, so a changed config file (copied in below) is a new revision.
        assetHashType: AssetHashType.OUTPUT,
        // esbuild in this process, never Docker (the image below is never pulled).
        bundling: {
          image: DockerImage.fromRegistry('esbuild-runs-locally'),
          local: {
            tryBundle(outputDir: string): boolean {
              buildSync({
                entryPoints: [join(ROOT, 'functions/entry/node-server.ts')],
                outfile: join(outputDir, ENTRY_POINT),
                bundle: true,
                platform: 'node',
                format: 'esm',
                target: 'node24',
                minify: true,
                sourcemap: true,
                banner: {
                  js: "import { createRequire as __gridgateRequire } from 'node:module'; const require = __gridgateRequire(import.meta.url);",
                },
                logLevel: 'error',
              });
              for (const [from, to] of copies) copyFileSync(from as string, join(outputDir, to as string));
              return true;
            },
          },
        },
      }),
      // gridgate answers basic auth itself (users in the config or its htpasswd file).
      defaultEndpointAuth: WebFunctionAuthType.APPLICATION_MANAGED,
      egressNetworkConnector: connector,
      timeout: props.timeout,
      maxConcurrencyPerEnvironment: props.maxConcurrencyPerEnvironment ?? 128,
      logGroup: this.logGroup,
      environment: {
        GRIDGATE_CONFIG: BUNDLED_CONFIG_PATH,
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
    });
    this.acknowledgeFindings(connector);
  }

  /** The Web Function brings CDK-made helpers (a code bucket, a copy function); their findings, with reasons. */
  private acknowledgeFindings(connector: NetworkConnector): void {
    const stack = Stack.of(this);
    Annotations.of(this.function).acknowledgeWarning(
      '@aws-cdk/aws-lambda:webFunctionPublicEndpoint',
      'gridgate authenticates every request itself (HTTP Basic auth against its users), as WebDriver clients expect.',
    );
    Validations.of(connector).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AWSLambdaNetworkConnectorOperatorPolicy]',
      reason:
        "AWS's policy for the role Lambda uses to manage the connector's network interfaces; nothing else.",
    });
    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: "AWS's minimal Lambda policy: write its own log streams; nothing else.",
    });
    const bucket = stack.node.tryFindChild('AWSCDKWebFunctionAssetBucket');
    if (bucket) {
      Validations.of(bucket).acknowledge({
        id: 'AwsSolutions-S1',
        reason:
          'The code bucket CDK manages for Web Functions: written only by deployments, read only by the Lambda service; access logs would need a bucket of their own.',
      });
    }
    const bucketId = bucket ? stack.getLogicalId(bucket.node.defaultChild as CfnResource) : '';
    const qualifier =
      stack.node.tryGetContext(BOOTSTRAP_QUALIFIER_CONTEXT) ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER;
    for (const copier of stack.node.children.filter((child) =>
      child.node.id.startsWith('Custom::S3ObjectCopy'),
    )) {
      const reason =
        "CDK's own copy function moves the bundle from the asset bucket into the code bucket at deploy time; its policy is CDK's, scoped to those two buckets.";
      for (const id of [
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-${qualifier}-assets-<AWS::AccountId>-<AWS::Region>/*]`,
        'AwsSolutions-IAM5[Action::s3:Abort*]',
        'AwsSolutions-IAM5[Action::s3:DeleteObject*]',
        `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/web-function/*]`,
      ]) {
        Validations.of(copier).acknowledge({ id, reason });
      }
    }
  }
}
