/**
 * The prices the dashboard's cost estimates, docs/aws.md's cost table and `npm run preflight` use: the same
 * table the sessions' costs come from (functions/core/prices.ts), and what only the deployment pays for
 * (network, secret, dashboard, alarms): us-east-1 list prices as researched on 2026-11-29 (VPC, EC2,
 * Secrets Manager and CloudWatch pricing pages; medium confidence).
 */
import { type Prices, US_EAST_1_PRICES } from '../functions/core/prices';

export { type Prices, taskPricePerSecond, US_EAST_1_PRICES } from '../functions/core/prices';

export interface NetworkPrices {
  /** A NAT gateway, per hour and per GB it processes. */
  natGatewayHour: number;
  natGatewayGb: number;
  /** The NAT instance: a t4g.nano on demand, per hour, and its 8 GB gp3 root volume, per GB-month. */
  natInstanceHour: number;
  ebsGp3GbMonth: number;
  /** A public IPv4 address (every NAT gateway and NAT instance has one), per hour. */
  publicIpv4Hour: number;
  /** An interface VPC endpoint, per AZ and hour (gateway endpoints for S3 and DynamoDB are free). */
  interfaceEndpointAzHour: number;
  /** An Application Load Balancer, per hour (LCUs beyond: per use, nothing while idle). */
  albHour: number;
  /** Secrets Manager, per secret and month; a CloudWatch dashboard (beyond three) and a standard alarm, per month. */
  secretMonth: number;
  dashboardMonth: number;
  alarmMonth: number;
}

export type DeploymentPrices = Prices & NetworkPrices;

export const US_EAST_1_DEPLOYMENT_PRICES: DeploymentPrices = {
  ...US_EAST_1_PRICES,
  natGatewayHour: 0.045,
  natGatewayGb: 0.045,
  natInstanceHour: 0.0042,
  ebsGp3GbMonth: 0.08,
  publicIpv4Hour: 0.005,
  interfaceEndpointAzHour: 0.01,
  albHour: 0.0225,
  secretMonth: 0.4,
  dashboardMonth: 3,
  alarmMonth: 0.1,
};

/** Hours in a month, as AWS's pricing pages count them. */
export const HOURS_PER_MONTH = 730;
