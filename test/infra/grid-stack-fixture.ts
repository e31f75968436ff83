/** Builds the gridgate stack the way `cdk synth` does (cdk.json's feature flags), without bundling. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { readGridConfig } from '../../infra/grid-config';
import { GridgateStack, type GridgateStackProps } from '../../infra/gridgate-stack';

export const ROOT = join(import.meta.dirname, '../..');
export const MULTI_POOL = join(ROOT, 'infra/examples/multi-pool.json');
// The feature flags `cdk synth` runs with, so these tests see the template that would be deployed.
export const CDK_CONTEXT = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')).context;

export interface FixtureOptions {
  /**
   * Check the template against CloudFormation's schema on synthesis (seconds of CPU each time), as
   * `cdk synth` does. @default false
   */
  schemaCheck?: boolean;
}

/** `configFile` (default: the built-in defaults) read and validated as the CDK app does. */
export function gridStack(props: Partial<GridgateStackProps> = {}, options: FixtureOptions = {}) {
  const app = new App({
    // Bundling (esbuild) is skipped here; bundled-config.test.ts bundles for real.
    context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: options.schemaCheck ?? false,
  });
  return new GridgateStack(app, 'Gridgate', {
    config: readGridConfig(props.configFile),
    ...props,
  });
}

/** The template of the stack built from the multi-pool example (two ecs pools, one hub pool). */
export function multiPoolTemplate(props: Partial<GridgateStackProps> = {}): Template {
  return Template.fromStack(gridStack({ configFile: MULTI_POOL, ...props }));
}

/** The one resource of `type` whose logical ID starts with `prefix`. */
export function logicalId(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1)
    throw new Error(`expected one ${type} named ${prefix}*, found ${ids.join(', ') || 'none'}`);
  return ids[0] as string;
}
