/**
 * What `npm run preflight` prints for a deployment before its first `cdk deploy`: what the account needs
 * (Docker for image assets, bootstrap, service-linked roles, quotas the config's pools will meet), what the
 * stack will create (counted from the template synthesized offline) and what it costs, idle and per session
 * (infra/deployment-costs.ts). Pure: the facts of the synthesized stack come in as arguments.
 */
import type { EcsPoolConfig } from '../functions/core/config';
import { type DeployOptions, networkLayout } from './deploy-options';
import {
  dollars,
  fixedMonthly,
  networkMonthly,
  serviceFrontDoorMonthly,
  sessionCost,
} from './deployment-costs';
import { browsingSessions, natInstanceSize } from './nat-instance-size';
import { ACCOUNT_RATE_LIMIT, gridCapacity, stageThrottle } from './stage-throttle';

/** What the synthesized stack holds: resources by CloudFormation type, and its assets. */
export interface SynthesizedFacts {
  resources: Record<string, number>;
  /** Container images `cdk deploy` builds with Docker and pushes to the bootstrap ECR repository. */
  dockerImages: number;
  /** Files and directories it uploads to the bootstrap bucket (function code). */
  files: number;
  /** What synthesis warned of (a moving image tag, an unreachable hub…). */
  warnings: string[];
}

/** Fargate's launch limits per account and Region (ECS developer guide, "AWS Fargate throttling quotas"). */
const FARGATE_LAUNCH_BURST = 100;
const FARGATE_LAUNCHES_PER_SECOND = 20;
/** Lambda environments beyond the sessions: the cleanup, the Spot interruption handler, /status probes. */
const LAMBDA_HEADROOM = 10;

export function preflightReport(options: DeployOptions, facts: SynthesizedFacts): string {
  const layout = networkLayout(options);
  return [
    `gridgate preflight: ${options.configFile ?? 'built-in defaults'}, front door ${options.frontDoor}, network ${layout}`,
    '',
    'What the account needs',
    ...accountNeeds(options, facts).map((line) => `- ${line}`),
    '',
    'What the stack creates',
    ...resourceLines(facts).map((line) => `- ${line}`),
    '',
    'What it costs (us-east-1 list prices, infra/prices.ts)',
    ...costLines(options).map((line) => `- ${line}`),
    ...(facts.warnings.length > 0 ? ['', 'Warnings', ...facts.warnings.map((line) => `- ${line}`)] : []),
    '',
  ].join('\n');
}

function ecsPools(options: DeployOptions): EcsPoolConfig[] {
  return Object.values(options.config.pools).filter((pool): pool is EcsPoolConfig => pool.kind === 'ecs');
}

function accountNeeds(options: DeployOptions, facts: SynthesizedFacts): string[] {
  const needs = [
    facts.dockerImages > 0
      ? `Docker on the machine that runs \`cdk deploy\`: ${facts.dockerImages} container image asset(s) to build and push to ECR`
      : 'no Docker: the stack has no container image assets',
    '`npx cdk bootstrap aws://ACCOUNT/REGION` once per account and Region (the assets bucket and ECR repository, the deploy roles)',
    ...serviceLinkedRoles(options).map(
      (role) =>
        `service-linked role ${role}: AWS creates it at first use, unless a policy denies iam:CreateServiceLinkedRole (then create it first)`,
    ),
  ];
  const pools = ecsPools(options);
  if (pools.length > 0) {
    const vcpu = (list: EcsPoolConfig[]) =>
      list.reduce((sum, pool) => sum + (pool.cpu / 1024) * (pool.maxSessions + (pool.warm?.max ?? 0)), 0);
    const spot = pools.filter((pool) => pool.spot);
    needs.push(
      `quota "Fargate On-Demand vCPU resource count" of at least ${vcpu(pools)} vCPU (every ecs pool full; Spot pools fall back to on-demand)`,
    );
    if (spot.length > 0) {
      needs.push(`quota "Fargate Spot vCPU resource count" of at least ${vcpu(spot)} vCPU (Spot pools full)`);
    }
    needs.push(
      `Fargate launches ${FARGATE_LAUNCH_BURST} tasks at once, then ${FARGATE_LAUNCHES_PER_SECOND} a second per account and Region (RunTask: 20 calls a second): new sessions beyond that wait and are retried`,
    );
  }
  for (const pool of Object.values(options.config.pools)) {
    if (pool.kind !== 'eks') continue;
    needs.push(
      `room on EKS cluster "${pool.cluster}" for ${pool.maxSessions} browser pods of ${pool.cpu} CPU and ${pool.memory} (pool "${pool.name}", namespace ${pool.namespace}); the stack adds access entries for its functions`,
    );
  }
  const capacity = gridCapacity(options.config);
  if (options.frontDoor === 'rest-api' || options.frontDoor === 'function-url') {
    // "Lambda response streaming is not yet available in all AWS Regions" (Lambda developer guide, "Response
    // streaming for Lambda functions"); preflight calls no AWS API, so it names the requirement and the page.
    const how = options.frontDoor === 'rest-api' ? 'STREAM integrations' : 'a RESPONSE_STREAM function URL';
    needs.push(
      `Lambda response streaming in the Region (the router answers through ${how}): not yet in every AWS Region; check yours in "AWS Capabilities by Region" before deploying, or use -c frontDoor=service`,
    );
    needs.push(
      `quota "Concurrent executions" (Lambda) of at least ${capacity + LAMBDA_HEADROOM}: one router environment per request in flight, ${capacity} sessions at once (the default is 1,000; new accounts can start lower)`,
    );
  }
  if (options.frontDoor === 'rest-api') {
    const throttle = options.throttle ?? stageThrottle(options.config);
    needs.push(
      `API Gateway's account limit of ${ACCOUNT_RATE_LIMIT.toLocaleString('en-US')} requests a second in the Region, shared by every API: the stage takes ${throttle.rateLimit} a second (burst ${throttle.burstLimit})`,
    );
  }
  return needs;
}

function serviceLinkedRoles(options: DeployOptions): string[] {
  const roles = ['AWSServiceRoleForECS (the cluster and its capacity providers)'];
  if (options.frontDoor === 'service') {
    roles.push("AWSServiceRoleForElasticLoadBalancing (the heads' load balancer)");
    roles.push('AWSServiceRoleForApplicationAutoScaling_ECSService (scaling the heads)');
  }
  if (!options.vpcId && options.layout === 'nat-instance') {
    roles.push("AWSServiceRoleForAutoScaling (the NAT instance's Auto Scaling group)");
  }
  return roles;
}

function resourceLines(facts: SynthesizedFacts): string[] {
  const total = Object.values(facts.resources).reduce((sum, count) => sum + count, 0);
  const byType = Object.entries(facts.resources)
    .sort(([a, countA], [b, countB]) => countB - countA || a.localeCompare(b))
    .map(([type, count]) => `${count} × ${type}`);
  return [
    `${total} CloudFormation resources: ${byType.join(', ')}`,
    `${facts.files} file asset(s) (function code) and ${facts.dockerImages} image asset(s)`,
  ];
}

function costLines(options: DeployOptions): string[] {
  const layout = networkLayout(options);
  const nat = natInstanceSize(browsingSessions(options.config), options.natGateways);
  const shape = {
    layout,
    natCount: options.natGateways,
    endpointAzs: options.endpointAzs,
    natInstanceHour: nat.hourly,
  };
  const network = networkMonthly(shape);
  const fixed = fixedMonthly();
  const heads = options.frontDoor === 'service' ? options.config.heads : undefined;
  const frontDoor = heads ? serviceFrontDoorMonthly(heads) : 0;
  const lines = [
    `idle: ${dollars(network + fixed + frontDoor)} a month (network ${dollars(network)}, secret, dashboard and alarms ${dollars(fixed)}${heads ? `, load balancer and ${heads.min} heads ${dollars(frontDoor)}` : ''}), plus ECR storage of the images and logs`,
  ];
  for (const pool of ecsPools(options)) {
    const onDemand = sessionCost({ ...pool, spot: false }, options.frontDoor, layout);
    const price = pool.spot
      ? `${dollars(sessionCost(pool, options.frontDoor, layout))} on Spot, ${dollars(onDemand)} on-demand`
      : `${dollars(onDemand)} on-demand`;
    lines.push(`a typical session (2 minutes, 500 commands) on ecs pool "${pool.name}": ${price}`);
  }
  return lines;
}
