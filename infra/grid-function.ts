/**
 * A gridgate Lambda function: an entry under functions/ bundled by esbuild (never Docker) for Node 22
 * on arm64, with the gridgate config file copied into the bundle so the function reads exactly the file
 * the stack was built from.
 */
import { copyFileSync, existsSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize } from 'node:path';
import { AssetHashType, DockerImage, type Duration, Validations } from 'aws-cdk-lib';
import type { ISecurityGroup, ISubnet, IVpc } from 'aws-cdk-lib/aws-ec2';
import {
  Architecture,
  Code,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct, IConstruct } from 'constructs';
import { buildSync } from 'esbuild';
import { JOB_LAMBDA_EXTERNALS } from '../functions/entry/lambda-bundle-externals';
import { routerBundleOptions } from '../functions/entry/router-bundle-options';

export const ROOT = join(import.meta.dirname, '..');
/** Where a function finds its config: the bundle is unpacked in /var/task. */
export const BUNDLED_CONFIG = 'gridgate.config.json';
export const BUNDLED_CONFIG_PATH = `/var/task/${BUNDLED_CONFIG}`;
/** The file bundled when no config is given: the built-in defaults, as the Node server has them. */
export const BUILT_IN_CONFIG = join(import.meta.dirname, 'builtin-config.json');

export interface GridFunctionProps {
  /** The entry file under functions/, e.g. 'entry/cleanup-lambda.ts' (a kind's own: 'pools/<kind>/…-lambda.ts'). */
  entry: string;
  description: string;
  /** The gridgate config file to bundle. @default the built-in defaults */
  configFile?: string;
  /** Its `usersFile`, relative to it, bundled next to it. */
  usersFile?: string;
  environment?: Record<string, string>;
  timeout: Duration;
  memorySize: number;
  vpc?: IVpc;
  vpcSubnets?: ISubnet[];
  securityGroups?: ISecurityGroup[];
  logRetention?: RetentionDays;
  /** Lambda's own retries of an asynchronous invocation (0–2). @default 2, Lambda's */
  retryAttempts?: number;
  /** How long an asynchronous invocation may wait in Lambda's queue (60 s–6 h). @default 6 h, Lambda's */
  maxEventAge?: Duration;
  /** At most this many invocations at once. @default the account's unreserved pool */
  reservedConcurrentExecutions?: number;
}

export function gridFunction(scope: Construct, id: string, props: GridFunctionProps): NodejsFunction {
  const configFile = props.configFile ?? BUILT_IN_CONFIG;
  const copies = [[configFile, BUNDLED_CONFIG], ...bundledUsersFile(configFile, props.usersFile)];
  const fn = new NodejsFunction(scope, id, {
    entry: join(ROOT, 'functions', props.entry),
    handler: 'handler',
    description: props.description,
    runtime: Runtime.NODEJS_22_X,
    // Graviton: about 20 % cheaper per GB-second than x86, and the router is I/O-bound.
    architecture: Architecture.ARM_64,
    timeout: props.timeout,
    memorySize: props.memorySize,
    vpc: props.vpc,
    vpcSubnets: props.vpcSubnets ? { subnets: props.vpcSubnets } : undefined,
    securityGroups: props.securityGroups,
    retryAttempts: props.retryAttempts,
    maxEventAge: props.maxEventAge,
    reservedConcurrentExecutions: props.reservedConcurrentExecutions,
    loggingFormat: LoggingFormat.TEXT,
    logGroup: new LogGroup(scope, `${id}Logs`, { retention: props.logRetention ?? RetentionDays.ONE_MONTH }),
    environment: {
      GRIDGATE_CONFIG: BUNDLED_CONFIG_PATH,
      NODE_OPTIONS: '--enable-source-maps',
      ...props.environment,
    },
    projectRoot: ROOT,
    depsLockFilePath: join(ROOT, 'package-lock.json'),
    bundling: {
      format: OutputFormat.ESM,
      target: 'node22',
      minify: true,
      sourceMap: true,
      mainFields: ['module', 'main'],
      externalModules: JOB_LAMBDA_EXTERNALS,
      // Some CommonJS dependencies call require(); an ESM bundle has none unless it makes one.
      banner:
        "import { createRequire as __gridgateRequire } from 'node:module'; const require = __gridgateRequire(import.meta.url);",
      forceDockerBundling: false,
      commandHooks: {
        beforeBundling: () => [],
        beforeInstall: () => [],
        afterBundling: (_input: string, output: string) =>
          copies.map(([from, to]) => `cp ${quote(from as string)} ${quote(join(output, to as string))}`),
      },
    },
  });
  acknowledgeManagedPolicies(fn);
  return fn;
}

/**
 * The router Lambda. Not a NodejsFunction: that writes one file, and the router is bundled with code
 * splitting (functions/entry/router-bundle-options.ts, what `npm run bench` measures), so a cold start
 * evaluates only the entry chunk and ECS loads with the first Fargate session. The asset is the whole
 * output folder. No source map: with --enable-source-maps it made init ~100 ms slower.
 */
export function routerFunction(
  scope: Construct,
  id: string,
  props: Omit<GridFunctionProps, 'entry'>,
): LambdaFunction {
  const configFile = props.configFile ?? BUILT_IN_CONFIG;
  const copies = [[configFile, BUNDLED_CONFIG], ...bundledUsersFile(configFile, props.usersFile)];
  const fn = new LambdaFunction(scope, id, {
    code: Code.fromAsset(join(ROOT, 'functions'), {
      // Hash what is deployed, so a changed config file (copied in below) is a new version.
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        // esbuild runs in this process, never in Docker: this image is never pulled.
        image: DockerImage.fromRegistry('esbuild-runs-locally'),
        local: {
          tryBundle(outputDir: string): boolean {
            buildSync(routerBundleOptions(outputDir));
            for (const [from, to] of copies) copyFileSync(from as string, join(outputDir, to as string));
            return true;
          },
        },
      },
    }),
    handler: 'router-lambda.handler',
    description: props.description,
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.ARM_64,
    timeout: props.timeout,
    memorySize: props.memorySize,
    vpc: props.vpc,
    vpcSubnets: props.vpcSubnets ? { subnets: props.vpcSubnets } : undefined,
    securityGroups: props.securityGroups,
    loggingFormat: LoggingFormat.TEXT,
    logGroup: new LogGroup(scope, `${id}Logs`, { retention: props.logRetention ?? RetentionDays.ONE_MONTH }),
    environment: { GRIDGATE_CONFIG: BUNDLED_CONFIG_PATH, ...props.environment },
  });
  acknowledgeManagedPolicies(fn);
  return fn;
}

/** The findings every gridgate function shares, with the reasons they stand. */
export function acknowledgeManagedPolicies(fn: IConstruct): void {
  const acknowledge = (id: string, reason: string) => Validations.of(fn).acknowledge({ id, reason });
  acknowledge(
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    "AWS's minimal Lambda policy: write its own log streams; nothing else.",
  );
  acknowledge(
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
    "AWS's minimal policy for a VPC-attached Lambda: manage its own network interfaces; nothing else.",
  );
  acknowledge(
    'AwsSolutions-L1',
    'Node.js 22 is the runtime gridgate is built and tested for (target node22); move to 24 with the code, not ahead of it.',
  );
}

/** [source, name in the bundle] of the config's usersFile: beside the bundled config, where the router resolves it. */
export function bundledUsersFile(configFile: string, usersFile: string | undefined): string[][] {
  if (usersFile === undefined) return [];
  const target = normalize(usersFile);
  if (isAbsolute(target) || target.startsWith('..')) {
    throw new Error(
      `usersFile "${usersFile}" must lie beside or below the config file to be bundled with it (a relative path without "..")`,
    );
  }
  const source = join(dirname(configFile), target);
  if (!existsSync(source)) throw new Error(`usersFile "${usersFile}" not found at ${source}`);
  if (target.includes('/')) {
    throw new Error(`usersFile "${usersFile}" must sit in the config file's own directory to be bundled`);
  }
  return [[source, target]];
}

function quote(path: string): string {
  return `'${path.replaceAll("'", "'\\''")}'`;
}
