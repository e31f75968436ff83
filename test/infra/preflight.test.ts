/**
 * `npm run preflight`, run as a user runs it: what it says the account needs, creates and costs follows
 * the config and the synthesized stack, it connects to nothing, and docs/aws-deploy.md shows its real output.
 */

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { EcsPoolConfig } from '../../functions/core/config';
import { dollars, fixedMonthly, networkMonthly, serviceFrontDoorMonthly } from '../../infra/deployment-costs';
import { readGridConfig } from '../../infra/grid-config';
import { browsingSessions, natInstanceSize } from '../../infra/nat-instance-size';
import { stageThrottle } from '../../infra/stage-throttle';
import { MULTI_POOL, multiPoolTemplate, ROOT } from './grid-stack-fixture';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'gridgate-preflight-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npm run preflight -- …args` under the loopback guard; its output and every connection it tried. */
async function preflight(args: string[]) {
  const log = join(dir, `connections-${Math.random().toString(36).slice(2)}.jsonl`);
  const env = {
    ...process.env,
    NODE_OPTIONS: `--require ${join(ROOT, 'test/support/loopback-guard.cjs')}`,
    LOOPBACK_GUARD_LOG: log,
  };
  const connections = () => {
    try {
      return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  try {
    const { stdout } = await run('npm', ['run', '-s', 'preflight', '--', ...args], { cwd: ROOT, env });
    return { stdout, connections: connections() };
  } catch (error) {
    return { stdout: '', ...(error as { code: number; stderr: string }), connections: connections() };
  }
}

describe('npm run preflight', () => {
  it('says what the account needs, what the stack creates and what it costs, for the config given', async () => {
    const { stdout, connections } = await preflight(['-c', `config=${MULTI_POOL}`]);
    const config = readGridConfig(MULTI_POOL);
    const ecs = Object.values(config.pools).filter((pool): pool is EcsPoolConfig => pool.kind === 'ecs');
    const vcpu = (pools: EcsPoolConfig[]) =>
      pools.reduce((sum, pool) => sum + (pool.cpu / 1024) * (pool.maxSessions + (pool.warm?.max ?? 0)), 0);
    const template = multiPoolTemplate().toJSON() as { Resources: Record<string, unknown> };

    expect(stdout).toContain(`${ecs.length} container image asset(s) to build and push to ECR`);
    expect(stdout).toContain(`"Fargate On-Demand vCPU resource count" of at least ${vcpu(ecs)} vCPU`);
    expect(stdout).toContain(
      `"Fargate Spot vCPU resource count" of at least ${vcpu(ecs.filter((pool) => pool.spot))} vCPU`,
    );
    const throttle = stageThrottle(config);
    expect(stdout).toContain(`the stage takes ${throttle.rateLimit} a second (burst ${throttle.burstLimit})`);
    expect(stdout).toContain(`${Object.keys(template.Resources).length} CloudFormation resources`);
    expect(stdout).toContain(`${ecs.length} × AWS::ECS::TaskDefinition`);
    // 30 browsers through the NAT instance: a t4g.small (infra/nat-instance-size.ts), priced as such.
    const nat = natInstanceSize(browsingSessions(config));
    expect(nat.type).toBe('t4g.small');
    const idle = networkMonthly({ layout: 'nat-instance', natInstanceHour: nat.hourly }) + fixedMonthly();
    expect(stdout).toContain(`idle: ${dollars(idle)} a month`);
    for (const pool of ecs) expect(stdout).toContain(`on ecs pool "${pool.name}"`);
    // The REST front door streams through Lambda, which not every Region offers yet.
    expect(stdout).toContain('- Lambda response streaming in the Region (the router answers through STREAM');
    // Offline: not one network connection, not one name lookup (tsx's own local pipe aside).
    const network = connections.map((line) => JSON.parse(line)).filter((entry) => entry.path === undefined);
    expect(network).toEqual([]);
  });

  it('follows the options as cdk deploy takes them: the network layout, the throttle, the front door', async () => {
    const { stdout } = await preflight([
      '-c',
      `config=${MULTI_POOL}`,
      '--context=network=nat-gateway',
      '-c',
      'throttleRate=900',
    ]);
    expect(stdout).toContain('network nat-gateway');
    expect(stdout).toContain(`network ${dollars(networkMonthly({ layout: 'nat-gateway' }))}`);
    expect(stdout).not.toContain('AWSServiceRoleForAutoScaling');
    expect(stdout).toContain('the stage takes 900 a second (burst 1800)');
  });

  it('for the service front door, adds the heads: their image, the roles they need, their idle cost', async () => {
    const config = join(dir, 'service.json');
    const heads = { min: 3, max: 5, onDemand: 1, cpu: 1024, memory: 2048 };
    writeFileSync(
      config,
      JSON.stringify({ ...JSON.parse(readFileSync(MULTI_POOL, 'utf8')), host: '0.0.0.0', heads }),
    );
    const { stdout } = await preflight(['-c', `config=${config}`, '-c', 'frontDoor=service']);
    expect(stdout).toContain('3 container image asset(s)');
    expect(stdout).toContain('AWSServiceRoleForElasticLoadBalancing');
    expect(stdout).not.toContain('"Concurrent executions"');
    // Heads are Node servers behind a load balancer: no Lambda streams.
    expect(stdout).not.toContain('Lambda response streaming');
    expect(stdout).toContain(`load balancer and 3 heads ${dollars(serviceFrontDoorMonthly(heads))}`);
  });

  it('fails as cdk synth would on a bad option, naming it', async () => {
    const result = await preflight(['-c', 'network=vpn']);
    expect(result).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/CDK context "network"[\s\S]*must be one of nat-instance/),
    });
    const typo = await preflight(['config=x.json']);
    expect(typo).toMatchObject({ code: 1, stderr: expect.stringContaining('use -c key=value') });
  });

  it('prints what docs/aws-deploy.md shows, line for line', async () => {
    const page = readFileSync(join(ROOT, 'docs/aws-deploy.md'), 'utf8');
    const command = /```sh\nnpm run preflight -- (.*)\n```/.exec(page)?.[1] as string;
    expect(command).toBe('-c config=infra/examples/fargate-chrome.json');
    const shown = /prints \(the resource list shortened here\):\n\n```\n([\s\S]*?)```/.exec(
      page,
    )?.[1] as string;
    const { stdout } = await preflight(command.split(' '));
    const lines = shown.split('\n').filter((line) => line !== '…');
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(stdout.split('\n')).toContain(line);
  });
});
