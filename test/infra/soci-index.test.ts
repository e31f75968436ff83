/**
 * `-c soci=true`: a Seekable OCI index built at deploy time beside every browser image the stack builds into
 * ECR (infra/soci-index.ts), and the task definitions naming the indexed image; off by default.
 */
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../functions/core/config';
import { readDeployOptions, stackProps } from '../../infra/deploy-options';
import { gridStack, logicalId, MULTI_POOL, ROOT } from './grid-stack-fixture';

const SOCI_BUILD = 'Custom::CDKSociIndexBuild';
const TASK_DEFINITION = 'AWS::ECS::TaskDefinition';

describe('SOCI indexes of the browser images', () => {
  it('are off by default: no index build, the task definitions name the assets as built', () => {
    const template = Template.fromStack(gridStack({ configFile: MULTI_POOL }));
    template.resourceCountIs(SOCI_BUILD, 0);
    template.resourceCountIs('AWS::CodeBuild::Project', 0);
  });

  it('with soci, index each image built into ECR once and give each task the indexed image', () => {
    const stack = gridStack({ configFile: MULTI_POOL, browsers: { soci: true } });
    const template = Template.fromStack(stack);
    // chrome-spot and chromium-arm: two images, two indexes, built by one CodeBuild project.
    const builds = Object.entries(template.findResources(SOCI_BUILD));
    expect(builds).toHaveLength(2);
    template.resourceCountIs('AWS::CodeBuild::Project', 1);
    for (const [, build] of builds) {
      expect(build.Properties.inputImageTag).toMatch(/^[0-9a-f]{64}$/);
      expect(build.Properties.outputImageTag).toBe(`${build.Properties.inputImageTag}-soci`);
      expect(JSON.stringify(build.Properties.repositoryName)).toContain('container-assets');
    }
    for (const pool of ['BrowsersPoolchromespot', 'BrowsersPoolchromiumarm']) {
      const id = logicalId(template, TASK_DEFINITION, pool);
      const image = JSON.stringify(
        template.findResources(TASK_DEFINITION)[id]?.Properties.ContainerDefinitions[0].Image,
      );
      // The image's tag is the index build's output: the deployment waits for the index.
      expect(image).toMatch(/"Fn::GetAtt":\["BrowsersSociIndex[0-9a-f]+[0-9A-F]{8}","outputImageTag"\]/);
    }
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });

  it('with soci, index the chromium-only image and a recorder’s image too, once each however many pools', () => {
    const chromium = Template.fromStack(
      gridStack({ configFile: join(ROOT, 'infra/examples/fargate-chromium.json'), browsers: { soci: true } }),
    );
    chromium.resourceCountIs(SOCI_BUILD, 1);
    const video = Template.fromStack(
      gridStack({
        configFile: join(ROOT, 'infra/examples/fargate-chrome-video.json'),
        browsers: { soci: true },
      }),
    );
    video.resourceCountIs(SOCI_BUILD, 2);
  });

  it('index nothing for images pulled from their registry (mirroring off): ECR is where an index lives', () => {
    const template = Template.fromStack(
      gridStack({ configFile: MULTI_POOL, browsers: { soci: true, mirrorImages: false } }),
    );
    template.resourceCountIs(SOCI_BUILD, 0);
  });

  it('are asked for with -c soci=true or false, and anything else is refused', () => {
    const options = (soci: unknown) => readDeployOptions((key) => (key === 'soci' ? soci : undefined));
    expect(stackProps(options(undefined)).browsers).toEqual({ soci: false });
    expect(stackProps(options('true')).browsers).toEqual({ soci: true });
    expect(stackProps(options(true)).browsers).toEqual({ soci: true });
    expect(stackProps(options('false')).browsers).toEqual({ soci: false });
    expect(() => options('yes')).toThrow(ConfigError);
    expect(() => options('yes')).toThrow(/CDK context "soci"[\s\S]*must be true or false/);
  });
});
