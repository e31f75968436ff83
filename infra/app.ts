/**
 * `npx cdk synth [-c config=gridgate.json]`: validates the gridgate config, then builds the stack under
 * cdk-nag. Context (infra/deploy-options.ts): `config` (the file; default: built-in defaults), `frontDoor`
 * (rest-api | function-url | web-function), `network` (nat-instance | nat-gateway | endpoints,
 * infra/network-layout.ts), `natGateways` (NAT gateways or instances, default 1), `endpointAzs` (endpoints
 * layout: AZs of the endpoints), `alarmEmail`, `throttleRate` (the REST stage's requests per second; default
 * sized from the pools, infra/stage-throttle.ts), `vpcId` (an existing VPC: needs credentials, see docs/aws.md)
 * `stackName` (default Gridgate; another name for a second grid in the same account and Region) and `soci`
 * (true: a Seekable OCI index beside every browser image built into ECR, infra/soci-index.ts; default false).
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ConfigError } from '../functions/core/config';
import { readDeployOptions, stackProps } from './deploy-options';
import { GridgateStack } from './gridgate-stack';

const app = new App();
try {
  const options = readDeployOptions((key) => app.node.tryGetContext(key));
  new GridgateStack(app, options.stackName, {
    ...stackProps(options),
    description: 'gridgate: a serverless WebDriver grid',
    // The account and Region of the CLI's credentials, when there are any: lookups (an existing VPC,
    // fck-nat's AMI) need them. Without credentials the stack is environment-agnostic and synthesizes
    // offline (with a placeholder NAT instance image, and warned of).
    env: credentialsEnv(),
  });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`gridgate: ${error.message}`);
  process.exit(1);
}

function credentialsEnv(): { account: string; region: string } | undefined {
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  const region = process.env.CDK_DEFAULT_REGION;
  return account && region ? { account, region } : undefined;
}

Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
