/**
 * An ecs pool's task definition as the stack synthesizes it, in RegisterTaskDefinition's shape (what
 * CloudFormation's AWS::ECS::TaskDefinition passes on: the same fields, camelCase), and the folder `cdk deploy`
 * builds its browser image from (the docker image asset the container names, in the cloud assembly). A fake ECS
 * given these runs what a deployment would register, not a hand-written copy.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AssetManifestArtifact } from 'aws-cdk-lib/cx-api';
import type { Config } from '../../functions/core/config';
import { GridgateStack } from '../../infra/gridgate-stack';
import { CDK_CONTEXT } from '../infra/grid-stack-fixture';

// biome-ignore lint/suspicious/noExplicitAny: templates are free-form JSON, read field by field.
type Json = any;

export interface SynthesizedTaskDefinition {
  /** RegisterTaskDefinition's input; values CloudFormation resolves at deploy time stay objects. */
  input: Json;
  /** What the browser container's image asset is built from: each file's name and content. */
  imageFiles: Map<string, string>;
}

/** CloudFormation's PascalCase property names as the API's camelCase, all the way down. */
function camelCase(value: Json): Json {
  if (Array.isArray(value)) return value.map(camelCase);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      /^[A-Z]/.test(key) ? key[0]?.toLowerCase() + key.slice(1) : key,
      camelCase(inner),
    ]),
  );
}

/** Synthesizes the stack for `config` and reads the task definition of its ecs pool `pool`. */
export function synthesizedTaskDefinition(config: Config, pool: string): SynthesizedTaskDefinition {
  const outdir = mkdtempSync(join(tmpdir(), 'gridgate-synth-'));
  try {
    const app = new App({ outdir, context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
    const stack = new GridgateStack(app, 'Gridgate', { config });
    const definitions = Template.fromStack(stack).findResources('AWS::ECS::TaskDefinition');
    const prefix = `BrowsersPool${pool.replace(/[^A-Za-z0-9]/g, '')}`;
    const ids = Object.keys(definitions).filter((id) => id.startsWith(prefix));
    if (ids.length !== 1) throw new Error(`expected one task definition ${prefix}*, found ${ids.join(', ')}`);
    const input = camelCase(definitions[ids[0] as string]?.Properties);
    // The image is `<account>.dkr.ecr…/cdk-…-container-assets-…:<asset hash>`: its tag names the asset.
    const image = JSON.stringify(input.containerDefinitions[0].image);
    const hash = /:([0-9a-f]{64})/.exec(image)?.[1];
    if (!hash) throw new Error(`the browser container's image is no asset of the stack: ${image}`);
    const assembly = app.synth();
    const manifest = assembly.artifacts.find((artifact) => artifact instanceof AssetManifestArtifact);
    const source = JSON.parse(readFileSync((manifest as AssetManifestArtifact).file, 'utf8')).dockerImages[
      hash
    ].source;
    const folder = join(assembly.directory, source.directory);
    const imageFiles = new Map(
      readdirSync(folder).map((name) => [name, readFileSync(join(folder, name), 'utf8')]),
    );
    return { input, imageFiles };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
