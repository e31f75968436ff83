/**
 * `npx cdk synth [-c config=gridgate.json]`: validates the gridgate config, then builds the stack under
 * cdk-nag. Context: `config` (the file; default: built-in defaults), `frontDoor` (rest-api | function-url
 * | web-function), `natGateways`, `alarmEmail`, `throttleRate` (the REST stage's requests per second; default sized
 * from the pools, infra/stage-throttle.ts) and `vpcId` (an existing VPC: needs credentials, see README).
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ConfigError } from '../functions/core/config';
import type { FrontDoorKind } from './front-door';
import { readGridConfig } from './grid-config';
import { GridgateStack } from './gridgate-stack';
import { ACCOUNT_BURST_LIMIT } from './stage-throttle';

const FRONT_DOORS: FrontDoorKind[] = ['rest-api', 'function-url', 'web-function'];

const app = new App();
try {
  const configFile = app.node.tryGetContext('config');
  const config = readGridConfig(configFile);
  const frontDoor = app.node.tryGetContext('frontDoor') ?? 'rest-api';
  if (!FRONT_DOORS.includes(frontDoor)) {
    throw new ConfigError('CDK context "frontDoor"', [`must be one of ${FRONT_DOORS.join(', ')}`]);
  }
  const natGateways = Number(app.node.tryGetContext('natGateways') ?? 0);
  if (!Number.isInteger(natGateways) || natGateways < 0) {
    throw new ConfigError('CDK context "natGateways"', ['must be a whole number']);
  }
  const throttleRate = app.node.tryGetContext('throttleRate');
  const rateLimit = throttleRate === undefined ? undefined : Number(throttleRate);
  if (rateLimit !== undefined && !(Number.isInteger(rateLimit) && rateLimit > 0)) {
    throw new ConfigError('CDK context "throttleRate"', ['must be a whole number of requests per second']);
  }
  const vpcId: string | undefined = app.node.tryGetContext('vpcId');
  const alarmEmail: string | undefined = app.node.tryGetContext('alarmEmail');
  new GridgateStack(app, 'Gridgate', {
    config,
    configFile,
    description: 'gridgate: a serverless WebDriver grid',
    // Without vpcId the stack is environment-agnostic: it synthesizes offline, with no lookups. A VPC
    // lookup needs the account and region, taken from the CLI's credentials.
    env: vpcId
      ? { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION }
      : undefined,
    network: { natGateways, vpcId },
    frontDoor: {
      kind: frontDoor,
      throttle: rateLimit
        ? { rateLimit, burstLimit: Math.min(ACCOUNT_BURST_LIMIT, 2 * rateLimit) }
        : undefined,
    },
    alarms: { email: alarmEmail },
  });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`gridgate: ${error.message}`);
  process.exit(1);
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
