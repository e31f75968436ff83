/**
 * What a deployment costs, from the list prices in infra/prices.ts: per month while no test runs (the
 * network layout dominates), and per session (the browser task, the router's Lambda time and requests,
 * REST requests, NAT processing). docs/aws.md's cost table and `npm run preflight` both print these
 * figures, and a test holds the page to them.
 */
import type { EcsPoolConfig } from '../functions/core/config';
import type { FrontDoorKind } from './front-door';
import { INTERFACE_ENDPOINTS, type NetworkLayout } from './network-layout';
import {
  type DeploymentPrices,
  HOURS_PER_MONTH,
  taskPricePerSecond,
  US_EAST_1_DEPLOYMENT_PRICES,
} from './prices';

export interface NetworkShape {
  layout: NetworkLayout;
  /** AZs of a new VPC. @default 2 */
  azs?: number;
  /** NAT gateways or instances. @default 1 */
  natCount?: number;
  /** A NAT instance's hourly price, when sized above the t4g.nano the prices list (nat-instance-size.ts). */
  natInstanceHour?: number;
  /** AZs the interface endpoints span (endpoints layout). @default every AZ */
  endpointAzs?: number;
}

/** The session the per-session figures describe: a 2-minute test, as docs/aws.md's cost paragraph has it. */
export const TYPICAL_SESSION = {
  /** Fargate seconds billed: image pull and start (~50 s) and the test (120 s). */
  taskSeconds: 170,
  /** WebDriver commands: requests through the front door. */
  commands: 500,
  /** Router Lambda seconds: the new session's wait (~45 s) and 500 commands of ~40 ms. */
  routerSeconds: 65,
  /** What the browser downloads from the sites under test (through NAT when there is NAT). */
  webTrafficGb: 0.05,
};

const NAT_INSTANCE_VOLUME_GB = 8;
/** Alarms the stack makes (failure rate, orphan reaps, cleanup errors, missed cleanup passes, router throttles). */
const ALARMS = 5;

/** The network's own monthly charge while idle. */
export function networkMonthly(
  shape: NetworkShape,
  prices: DeploymentPrices = US_EAST_1_DEPLOYMENT_PRICES,
): number {
  const azs = shape.azs ?? 2;
  const nat = shape.natCount ?? 1;
  switch (shape.layout) {
    case 'nat-instance':
      return (
        nat *
        (((shape.natInstanceHour ?? prices.natInstanceHour) + prices.publicIpv4Hour) * HOURS_PER_MONTH +
          NAT_INSTANCE_VOLUME_GB * prices.ebsGp3GbMonth)
      );
    case 'nat-gateway':
      return nat * (prices.natGatewayHour + prices.publicIpv4Hour) * HOURS_PER_MONTH;
    case 'endpoints':
      return (
        INTERFACE_ENDPOINTS.length *
        (shape.endpointAzs ?? azs) *
        prices.interfaceEndpointAzHour *
        HOURS_PER_MONTH
      );
    case 'existing':
      return 0;
  }
}

/** What every layout adds while idle: the signing-key secret, the dashboard and the alarms. */
export function fixedMonthly(prices: DeploymentPrices = US_EAST_1_DEPLOYMENT_PRICES): number {
  return prices.secretMonth + prices.dashboardMonth + ALARMS * prices.alarmMonth;
}

/** One typical session on `pool`, behind `frontDoor`, in `layout`. */
export function sessionCost(
  pool: Pick<EcsPoolConfig, 'cpu' | 'memory' | 'architecture' | 'spot'>,
  frontDoor: FrontDoorKind,
  layout: NetworkLayout,
  prices: DeploymentPrices = US_EAST_1_DEPLOYMENT_PRICES,
  routerMemoryMb = 512,
): number {
  const session = TYPICAL_SESSION;
  const task = taskPricePerSecond(pool as EcsPoolConfig, prices) * session.taskSeconds;
  // A Web Function bills active CPU, not wall time: its share is not modelled here, so none is counted;
  // heads cost by the hour (serviceFrontDoorMonthly), not by the session.
  const router =
    frontDoor === 'web-function' || frontDoor === 'service'
      ? 0
      : session.commands * prices.lambdaRequest +
        session.routerSeconds * (routerMemoryMb / 1024) * prices.lambdaArmGbSecond;
  const rest = frontDoor === 'rest-api' ? session.commands * prices.restApiRequest : 0;
  const nat = layout === 'nat-gateway' ? session.webTrafficGb * prices.natGatewayGb : 0;
  return task + router + rest + nat;
}

/** A 1 vCPU / 2 GB x86 browser, as the examples' chrome pools. */
export const TYPICAL_POOL = { cpu: 1024, memory: 2048, architecture: 'x86_64', spot: true } as const;

export function dollars(amount: number): string {
  if (amount === 0) return '$0';
  return amount >= 1 ? `$${amount.toFixed(2)}` : `$${amount.toFixed(4)}`;
}

const LAYOUT_ROWS: Array<{ shape: NetworkShape; name: string; internet: string }> = [
  { shape: { layout: 'nat-instance' }, name: '`nat-instance` (default): fck-nat, t4g.nano', internet: 'yes' },
  { shape: { layout: 'nat-gateway' }, name: '`nat-gateway`: one NAT gateway', internet: 'yes' },
  { shape: { layout: 'endpoints' }, name: '`endpoints`: 5 interface endpoints × 2 AZs', internet: 'no' },
  {
    shape: { layout: 'endpoints', endpointAzs: 1 },
    name: '`endpoints`, `-c endpointAzs=1`',
    internet: 'no',
  },
  { shape: { layout: 'existing' }, name: 'existing VPC (`-c vpcId=…`)', internet: 'as it has' },
];

/** docs/aws.md's cost table: idle per month (network, plus what every layout has) and per typical session. */
export function costTable(prices: DeploymentPrices = US_EAST_1_DEPLOYMENT_PRICES): string {
  const fixed = fixedMonthly(prices);
  const rows = LAYOUT_ROWS.map(({ shape, name, internet }) => {
    const idle = networkMonthly(shape, prices);
    const spot = sessionCost(TYPICAL_POOL, 'rest-api', shape.layout, prices);
    const onDemand = sessionCost({ ...TYPICAL_POOL, spot: false }, 'rest-api', shape.layout, prices);
    return `| ${name} | ${internet} | ${dollars(idle)} | ${dollars(idle + fixed)} | ${dollars(spot)} | ${dollars(onDemand)} |`;
  });
  return [
    '| network (`-c network=…`) | internet for browsers | network, per month idle | whole stack, per month idle | per session, Spot | per session, on-demand |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The service front door's heads, priced as the config's `heads` has them. */
export interface HeadsShape {
  min: number;
  onDemand: number;
  cpu: number;
  memory: number;
}

/** The config schema's defaults: 2 heads, one on demand, 0.5 vCPU and 1 GB each. */
export const TYPICAL_HEADS: HeadsShape = { min: 2, onDemand: 1, cpu: 512, memory: 1024 };

/**
 * The service front door while idle: the load balancer's hours and its public IPv4 address in each AZ,
 * and the minimum heads running (the on-demand base at the on-demand rate, the rest on Spot).
 */
export function serviceFrontDoorMonthly(
  heads: HeadsShape,
  prices: DeploymentPrices = US_EAST_1_DEPLOYMENT_PRICES,
  azs = 2,
): number {
  const head = (spot: boolean) =>
    taskPricePerSecond(
      { cpu: heads.cpu, memory: heads.memory, architecture: 'x86_64', spot } as EcsPoolConfig,
      prices,
    ) *
    3600 *
    HOURS_PER_MONTH;
  const balancer = (prices.albHour + azs * prices.publicIpv4Hour) * HOURS_PER_MONTH;
  return balancer + heads.onDemand * head(false) + (heads.min - heads.onDemand) * head(true);
}

/** docs/front-doors.md's table: what each front door costs idle and per session, on the default network. */
export function frontDoorTable(prices: DeploymentPrices = US_EAST_1_DEPLOYMENT_PRICES): string {
  const perSession = (kind: FrontDoorKind) =>
    dollars(sessionCost(TYPICAL_POOL, kind, 'nat-instance', prices));
  const rows = [
    ['`rest-api` (default)', dollars(0), perSession('rest-api')],
    ['`function-url`', dollars(0), perSession('function-url')],
    [
      '`service`: ALB and 2 heads (1 on demand, 1 Spot)',
      dollars(serviceFrontDoorMonthly(TYPICAL_HEADS, prices)),
      perSession('service'),
    ],
  ];
  return [
    '| front door (`-c frontDoor=…`) | front door, per month idle | per session, Spot browser |',
    '|---|---|---|',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}
