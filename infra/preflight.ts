/**
 * `npm run preflight -- -c config=gridgate.json [-c key=value …]`: before a first `cdk deploy`, says what
 * the account needs, what the stack creates and what it costs (infra/preflight-report.ts). It takes the
 * CDK app's context options and synthesizes the same stack in this process, without bundling and without
 * credentials, so it calls no AWS API and needs no Docker.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { ConfigError } from '../functions/core/config';
import { readDeployOptions, stackProps } from './deploy-options';
import { GridgateStack } from './gridgate-stack';
import { preflightReport, type SynthesizedFacts } from './preflight-report';

const ROOT = join(import.meta.dirname, '..');
/** An account and Region for lookups (an existing VPC): unanswered offline, CDK puts placeholders in. */
const PLACEHOLDER_ENV = { account: '123456789012', region: 'us-east-1' };

/** `-c key=value` and `--context key=value` pairs, as the CDK CLI reads them. */
export function contextArguments(argv: string[]): Record<string, string> {
  const context: Record<string, string> = {};
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    const inline = /^(?:-c|--context)=(.*)$/.exec(arg)?.[1];
    const pair = inline ?? (arg === '-c' || arg === '--context' ? argv[++index] : undefined);
    if (pair === undefined)
      throw new ConfigError('preflight', [`unknown argument "${arg}" (use -c key=value)`]);
    const equals = pair.indexOf('=');
    if (equals < 1) throw new ConfigError('preflight', [`"${pair}" is not key=value`]);
    context[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return context;
}

function synthesize(context: Record<string, string>): { report: string } {
  const cdkContext = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')).context;
  const merged: Record<string, unknown> = { ...cdkContext, ...context };
  const options = readDeployOptions((key) => merged[key]);
  const outdir = mkdtempSync(join(tmpdir(), 'gridgate-preflight-'));
  try {
    const app = new App({
      outdir,
      // Warnings go into the report rather than onto the terminal.
      context: {
        ...merged,
        'aws:cdk:bundling-stacks': [],
        '@aws-cdk/core:annotationsInValidationReport': false,
      },
      builtinCloudFormationValidation: false,
    });
    const stack = new GridgateStack(app, options.stackName, {
      ...stackProps(options),
      env: options.vpcId ? PLACEHOLDER_ENV : undefined,
    });
    const artifact = app.synth().getStackArtifact(stack.artifactId);
    const template = artifact.template as {
      Resources: Record<string, { Type: string }>;
    };
    const resources: Record<string, number> = {};
    for (const { Type } of Object.values(template.Resources)) resources[Type] = (resources[Type] ?? 0) + 1;
    const assets = JSON.parse(readFileSync(join(outdir, `${stack.artifactId}.assets.json`), 'utf8'));
    const facts: SynthesizedFacts = {
      resources,
      dockerImages: Object.keys(assets.dockerImages ?? {}).length,
      // The template itself is a file asset too; it is not code.
      files: Object.keys(assets.files ?? {}).length - 1,
      warnings: artifact.messages
        .filter((message) => message.level === 'warning')
        .map((message) => String(message.entry.data).replace(/ \[ack: [^\]]+\]$/, ''))
        // Only an offline synth lacks the AMI: `cdk deploy` with credentials looks it up.
        .filter((text) => !text.includes('ami-00000000000000000')),
    };
    return { report: preflightReport(options, facts) };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

try {
  process.stdout.write(synthesize(contextArguments(process.argv.slice(2))).report);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`gridgate: ${error.message}`);
  process.exit(1);
}
