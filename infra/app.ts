/**
 * `npx cdk synth [-c config=gridgate.json]`: validates the gridgate config, then builds the stack under
 * cdk-nag. Context: `config` (the file; default: built-in defaults), `frontDoor` (rest-api | function-url
 * | web-function), `network` (nat-instance | nat-gateway | endpoints, infra/network-layout.ts), `natGateways`
 * (NAT gateways or instances, default 1), `endpointAzs` (endpoints layout: AZs of the endpoints), `alarmEmail`, `throttleRate` (the REST stage's requests per second; default sized
 * from the pools, infra/stage-throttle.ts) and `vpcId` (an existing VPC: needs credentials, see docs/aws.md).
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ConfigError } from '../functions/core/config';
import type { FrontDoorKind } from './front-door';
import { readGridConfig } from './grid-config';
import { GridgateStack } from './gridgate-stack';
import { NETWORK_LAYOUTS } from './network-layout';
import { ACCOUNT_BURST_LIMIT } from './stage-throttle';

const FRONT_DOORS: FrontDoorKind[] = ['rest-api', 'function-url', 'web-function'];
const NEW_VPC_LAYOUTS = NETWORK_LAYOUTS.filter((layout) => layout !== 'existing');

const app = new App();
try {
  const configFile = app.node.tryGetContext('config');
  const config = readGridConfig(configFile);
  const frontDoor = app.node.tryGetContext('frontDoor') ?? 'rest-api';
  if (!FRONT_DOORS.includes(frontDoor)) {
    throw new ConfigError('CDK context "frontDoor"', [`must be one of ${FRONT_DOORS.join(', ')}`]);
  }
  const layout = app.node.tryGetContext('network') ?? 'nat-instance';
  if (!NEW_VPC_LAYOUTS.includes(layout)) {
    throw new ConfigError('CDK context "network"', [`must be one of ${NEW_VPC_LAYOUTS.join(', ')}`]);
  }
  const natGateways = wholeNumber(app, 'natGateways', 1);
  const endpointAzs = wholeNumber(app, 'endpointAzs', undefined);
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
    // The account and Region of the CLI's credentials, when there are any: lookups (an existing VPC,
    // fck-nat's AMI) need them. Without credentials the stack is environment-agnostic and synthesizes
    // offline (with a placeholder NAT instance image, and warned of).
    env: credentialsEnv(),
    network: { layout, natGateways, endpointAzs, vpcId },
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
/** A positive whole number from the context, or `fallback`. */
function wholeNumber<T extends number | undefined>(app: App, key: string, fallback: T): number | T {
  const value = app.node.tryGetContext(key);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new ConfigError(`CDK context "${key}"`, ['must be a whole number, 1 or more']);
  }
  return number;
}

function credentialsEnv(): { account: string; region: string } | undefined {
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  const region = process.env.CDK_DEFAULT_REGION;
  return account && region ? { account, region } : undefined;
}

Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
