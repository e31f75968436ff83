/**
 * The options of one deployment, read from the CDK context (`-c key=value`) the way `cdk synth` and
 * `npm run preflight` both take them, so what preflight describes is what `cdk deploy` builds. Every bad
 * value is a ConfigError naming its context key.
 */
import type { Config } from '../functions/core/config';
import { ConfigError } from '../functions/core/config';
import type { FrontDoorKind } from './front-door';
import { readGridConfig } from './grid-config';
import type { GridgateStackProps } from './gridgate-stack';
import { NETWORK_LAYOUTS, type NetworkLayout } from './network-layout';
import { ACCOUNT_BURST_LIMIT } from './stage-throttle';

export const FRONT_DOORS: FrontDoorKind[] = ['rest-api', 'function-url', 'web-function', 'service'];
const NEW_VPC_LAYOUTS = NETWORK_LAYOUTS.filter((layout) => layout !== 'existing');

export interface DeployOptions {
  /** The CloudFormation stack's name (`-c stackName=`): a second grid in one account and Region takes another. */
  stackName: string;
  configFile: string | undefined;
  config: Config;
  frontDoor: FrontDoorKind;
  /** The layout of a new VPC (unused with `vpcId`). */
  layout: Exclude<NetworkLayout, 'existing'>;
  natGateways: number;
  endpointAzs: number | undefined;
  vpcId: string | undefined;
  /** The REST stage's limit from `-c throttleRate`; undefined: sized from the pools. */
  throttle: { rateLimit: number; burstLimit: number } | undefined;
  alarmEmail: string | undefined;
  /** A SOCI index beside every browser image built into ECR (`-c soci=true`; infra/soci-index.ts says why off). */
  soci: boolean;
}

/** `context(key)` is the CDK context value of `key` (`app.node.tryGetContext`). */
export function readDeployOptions(context: (key: string) => unknown): DeployOptions {
  const configFile = context('config') as string | undefined;
  const config = readGridConfig(configFile);
  const frontDoor = (context('frontDoor') ?? 'rest-api') as FrontDoorKind;
  if (!FRONT_DOORS.includes(frontDoor)) {
    throw new ConfigError('CDK context "frontDoor"', [`must be one of ${FRONT_DOORS.join(', ')}`]);
  }
  const layout = (context('network') ?? 'nat-instance') as DeployOptions['layout'];
  if (!NEW_VPC_LAYOUTS.includes(layout)) {
    throw new ConfigError('CDK context "network"', [`must be one of ${NEW_VPC_LAYOUTS.join(', ')}`]);
  }
  const throttleRate = context('throttleRate');
  const rateLimit = throttleRate === undefined ? undefined : Number(throttleRate);
  if (rateLimit !== undefined && !(Number.isInteger(rateLimit) && rateLimit > 0)) {
    throw new ConfigError('CDK context "throttleRate"', ['must be a whole number of requests per second']);
  }
  const vpcId = context('vpcId') as string | undefined;
  return {
    stackName: stackNameOf(context('stackName')),
    configFile,
    config,
    frontDoor,
    layout,
    natGateways: wholeNumber(context, 'natGateways', 1),
    endpointAzs: wholeNumber(context, 'endpointAzs', undefined),
    vpcId,
    throttle: rateLimit ? { rateLimit, burstLimit: Math.min(ACCOUNT_BURST_LIMIT, 2 * rateLimit) } : undefined,
    alarmEmail: context('alarmEmail') as string | undefined,
    soci: booleanOf(context, 'soci', false),
  };
}

/** The layout the deployment's network has: `existing` for `-c vpcId=…`. */
export function networkLayout(options: DeployOptions): NetworkLayout {
  return options.vpcId ? 'existing' : options.layout;
}

/** The stack's props for `options` (the CDK app adds its description and environment). */
export function stackProps(options: DeployOptions): GridgateStackProps {
  const { layout, natGateways, endpointAzs, vpcId } = options;
  return {
    config: options.config,
    configFile: options.configFile,
    network: { layout, natGateways, endpointAzs, vpcId },
    frontDoor: { kind: options.frontDoor, throttle: options.throttle },
    alarms: { email: options.alarmEmail },
    browsers: { soci: options.soci },
  };
}

/** The stack's name when none is given: the one every deployment before `-c stackName` had. */
export const DEFAULT_STACK_NAME = 'Gridgate';
// CloudFormation CreateStack: "A stack name can contain only alphanumeric characters (case sensitive) and
// hyphens. It must start with an alphabetical character and can't be longer than 128 characters."
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;

function stackNameOf(value: unknown): string {
  if (value === undefined) return DEFAULT_STACK_NAME;
  if (typeof value !== 'string' || !STACK_NAME.test(value)) {
    throw new ConfigError('CDK context "stackName"', [
      'must start with a letter and hold only letters, digits and hyphens, at most 128 characters',
    ]);
  }
  return value;
}

/** `true` or `false` from the context (a string on the command line, a boolean in cdk.json), or `fallback`. */
function booleanOf(context: (key: string) => unknown, key: string, fallback: boolean): boolean {
  const value = context(key);
  if (value === undefined) return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new ConfigError(`CDK context "${key}"`, ['must be true or false']);
}

/** A positive whole number from the context, or `fallback`. */
function wholeNumber<T extends number | undefined>(
  context: (key: string) => unknown,
  key: string,
  fallback: T,
): number | T {
  const value = context(key);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new ConfigError(`CDK context "${key}"`, ['must be a whole number, 1 or more']);
  }
  return number;
}
