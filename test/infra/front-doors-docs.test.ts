/**
 * docs/front-doors.md held to the code: its cost table is infra/deployment-costs.ts's, its service config
 * synthesizes the HTTPS front door it describes, and its Kubernetes manifests run the image as the
 * Dockerfile builds it, with a config a head accepts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseConfig } from '../../functions/core/config';
import { undeployedSettings } from '../../functions/pools';
import { frontDoorTable } from '../../infra/deployment-costs';
import { serviceFrontDoorProblems } from '../../infra/router-service';
import { finalStage } from '../support/dockerfile-stage';
import { gridStack, ROOT } from './grid-stack-fixture';

const page = readFileSync(join(ROOT, 'docs/front-doors.md'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'gridgate-front-doors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function block(language: string): string {
  const found = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(page);
  if (!found) throw new Error(`docs/front-doors.md has no ${language} block`);
  return found[1] as string;
}

// biome-ignore lint/suspicious/noExplicitAny: manifests are read as plain JSON trees
type Manifest = any;

describe('docs/front-doors.md', () => {
  it("shows each front door's cost as infra/deployment-costs.ts computes it", () => {
    expect(page).toContain(frontDoorTable());
  });

  it('has a service config that synthesizes the HTTPS front door it describes, cdk-nag clean', () => {
    const path = join(dir, 'gridgate.json');
    writeFileSync(path, block('json'));
    // The users file the example names, beside it (its content is the team's own).
    writeFileSync(join(dir, 'users.htpasswd'), 'alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\n');
    const config = parseConfig(JSON.parse(block('json')), { builtInBrowserVersion: 'stable' });
    expect(serviceFrontDoorProblems(config)).toEqual([]);
    expect(block('sh').trim()).toBe('npx cdk deploy -c config=gridgate.json -c frontDoor=service');
    const stack = gridStack({ configFile: path, frontDoor: { kind: 'service' } });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', { Port: 443, Protocol: 'HTTPS' });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      MinCapacity: 2,
      MaxCapacity: 6,
    });
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });

  it('runs the image as built, with its config where the image reads it, probed on /status', () => {
    const [configMap, deployment, service] = parseAllDocuments(block('yaml')).map(
      (doc) => doc.toJSON() as Manifest,
    );
    expect([configMap.kind, deployment.kind, service.kind]).toEqual(['ConfigMap', 'Deployment', 'Service']);
    const stage = finalStage(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
    const configPath = stage.env.GRIDGATE_CONFIG as string;

    const config = parseConfig(JSON.parse(configMap.data[basename(configPath)]), {
      builtInBrowserVersion: 'stable',
    });
    expect(undeployedSettings(config)).toEqual([]);
    expect(config.store.kind).toBe('dynamodb');

    const pod = deployment.spec.template.spec;
    const [head] = pod.containers;
    // The image's own CMD and GRIDGATE_CONFIG: no command or config path of the manifest's own.
    expect(head.command).toBeUndefined();
    expect(head.args).toBeUndefined();
    expect(head.env.map((variable: { name: string }) => variable.name)).not.toContain('GRIDGATE_CONFIG');
    expect(head.env.map((variable: { name: string }) => variable.name)).toContain('GRIDGATE_SECRET');
    expect(head.volumeMounts).toEqual([{ name: 'config', mountPath: dirname(configPath), readOnly: true }]);
    expect(pod.volumes).toEqual([{ name: 'config', configMap: { name: configMap.metadata.name } }]);
    expect(head.ports).toEqual([{ name: 'webdriver', containerPort: config.port }]);
    expect(head.readinessProbe.httpGet).toEqual({ path: '/status', port: 'webdriver' });
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(60);

    expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
    expect(service.spec.ports).toEqual([{ name: 'webdriver', port: config.port, targetPort: 'webdriver' }]);
  });
});
