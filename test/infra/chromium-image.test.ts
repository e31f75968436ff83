/**
 * ecs pools on gridgate's chromium-only image (infra/examples/fargate-chromium.json): built by the stack from
 * images/chromium for the pool's architecture, started under the same hard lifetime as docker-selenium, and
 * refused at synth where it cannot work (VNC, docker-selenium's recorder, eks pods).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AssetManifestArtifact } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import type { Config, EcsPoolConfig } from '../../functions/core/config';
import { CHROMIUM_IMAGE } from '../../infra/chromium-image';
import { readGridConfig } from '../../infra/grid-config';
import { gridStack, logicalId, ROOT } from './grid-stack-fixture';

const EXAMPLE = join(ROOT, 'infra/examples/fargate-chromium.json');
const TASK_DEFINITION = 'AWS::ECS::TaskDefinition';

/** The docker image assets of a synthesized stack, as `cdk deploy` builds them (its asset manifest). */
function dockerImageAssets(stack: ReturnType<typeof gridStack>) {
  const assembly = (stack.node.root as App).synth();
  const manifests = assembly.artifacts.filter((artifact) => artifact instanceof AssetManifestArtifact);
  return manifests.flatMap((manifest) =>
    Object.values(
      JSON.parse(readFileSync(manifest.file, 'utf8')).dockerImages as Record<
        string,
        { source: { directory: string; dockerBuildArgs?: Record<string, string>; platform?: string } }
      >,
    ).map(({ source }) => ({ ...source, directory: join(assembly.directory, source.directory) })),
  );
}

function withPool(change: Partial<EcsPoolConfig>): Config {
  const config = readGridConfig(EXAMPLE);
  Object.assign(config.pools['chromium-spot'] as EcsPoolConfig, change);
  return config;
}

describe('an ecs pool on the chromium-only image', () => {
  const stack = gridStack({ configFile: EXAMPLE });
  const template = Template.fromStack(stack);

  it('builds images/chromium itself, for the pool’s architecture, with no build argument', () => {
    const assets = dockerImageAssets(stack).filter((asset) => !asset.dockerBuildArgs?.IMAGE);
    expect(assets).toHaveLength(1);
    const [asset] = assets;
    expect(asset?.platform).toBe('linux/amd64');
    for (const file of ['Dockerfile', 'entry_point.sh']) {
      expect(readFileSync(join(asset?.directory ?? '', file), 'utf8')).toBe(
        readFileSync(join(ROOT, 'images/chromium', file), 'utf8'),
      );
    }
    const arm = dockerImageAssets(gridStack({ config: withPool({ architecture: 'arm64', spot: false }) }));
    expect(arm.map((asset) => asset.platform)).toContain('linux/arm64');
  });

  it('runs its entry point under the hard lifetime, on the pool’s port, without docker-selenium’s settings', () => {
    const id = logicalId(template, TASK_DEFINITION, 'BrowsersPoolchromiumspot');
    const container = template.findResources(TASK_DEFINITION)[id]?.Properties.ContainerDefinitions[0];
    expect(container.Command).toEqual(['timeout', '--kill-after=120s', '4080s', '/opt/bin/entry_point.sh']);
    expect(container.PortMappings).toEqual([expect.objectContaining({ ContainerPort: 4444 })]);
    expect(container.Environment).toEqual([{ Name: 'SE_PORT', Value: '4444' }]);
    expect(JSON.stringify(container.Image)).toContain('container-assets');
  });

  it('is not warned of as a moving tag, and passes cdk-nag', () => {
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('moving tag'))).toEqual([]);
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });

  it('is refused at synth with a VNC port, a video recorder, or in an eks pool', () => {
    expect(() => gridStack({ config: withPool({ vncPort: 7900 }) })).toThrow(
      /pools.chromium-spot: build:images\/chromium has no display and no VNC server; set "vncPort": false/,
    );
    expect(() =>
      gridStack({ config: withPool({ recorder: { image: 'selenium/video:ffmpeg-8.0-20251202' } }) }),
    ).toThrow(/pools.chromium-spot: docker-selenium's video recorder watches a Selenium node/);
    const eks = readGridConfig(join(ROOT, 'infra/examples/eks-pool.json'));
    for (const pool of Object.values(eks.pools)) if ('image' in pool) pool.image = CHROMIUM_IMAGE;
    expect(() => gridStack({ config: eks })).toThrow(/an eks pod pulls its image by name/);
  });
});
