/** `-c stackName=`: a second grid in the same account and Region, under a name of its own. */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { readDeployOptions, stackProps } from '../../infra/deploy-options';
import { GridgateStack } from '../../infra/gridgate-stack';
import { CDK_CONTEXT, MULTI_POOL } from './grid-stack-fixture';

// Names that are unique only within their resource (a role's inline policy, an API's stage, an alarm's metric).
const WITHIN = new Set(['PolicyName', 'StageName', 'MetricName']);

const options = (context: Record<string, unknown>) =>
  readDeployOptions((key) => ({ config: MULTI_POOL, ...context })[key]);

describe('-c stackName', () => {
  it('names the stack Gridgate by default, and as given otherwise', () => {
    expect(options({}).stackName).toBe('Gridgate');
    expect(options({ stackName: 'Gridgate-staging' }).stackName).toBe('Gridgate-staging');
  });

  it('refuses a name CloudFormation would refuse, naming the context key', () => {
    for (const name of ['2nd-grid', 'grid_staging', 'grid.staging', 'g'.repeat(129)]) {
      expect(() => options({ stackName: name })).toThrow(
        /CDK context "stackName".*\n.*must start with a letter/,
      );
    }
  });

  it('gives two grids in one account no physical name in common', () => {
    const app = new App({ context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
    const stacks = ['Gridgate', 'Gridgate-staging'].map((stackName) => {
      const deploy = options({ stackName });
      return new GridgateStack(app, deploy.stackName, stackProps(deploy));
    });
    const names = stacks.map((stack) => {
      // Every explicit name of a resource (RestApi Name, DashboardName, …): resolved references are objects.
      return Object.values(Template.fromStack(stack).toJSON().Resources as Record<string, never>).flatMap(
        ({ Properties }: { Properties?: Record<string, unknown> }) =>
          Object.entries(Properties ?? {})
            .filter(([key, value]) => /Name$/.test(key) && !WITHIN.has(key) && typeof value === 'string')
            .map(([key, value]) => `${key}=${value}`),
      );
    });
    expect(names[0]).toContain('Name=Gridgate-webdriver');
    expect(names[1]).toContain('Name=Gridgate-staging-webdriver');
    expect(names[0]?.filter((name) => names[1]?.includes(name))).toEqual([]);
  });
});
