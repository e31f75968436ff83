/**
 * The ways the grid's VPC can be laid out, chosen with `-c network=…`, and what each gives: whether
 * browsers reach the internet, and what it adds to the bill while no test runs.
 *
 * - `nat-instance` (default): fck-nat on a t4g.nano per AZ used (1 by default). Browsers open public
 *   sites (staging sites on the internet are what most teams test); AWS APIs go out through it, S3 (image
 *   layers) and DynamoDB through free gateway endpoints. About $7 a month idle.
 * - `nat-gateway`: AWS's managed NAT gateway instead: no instance to look after, scales on its own, but
 *   about $36 a month each and $0.045 per GB of what browsers fetch.
 * - `endpoints`: no internet at all: interface endpoints for ECS, ECR, Logs and Secrets Manager. Browsers
 *   reach only the VPC and what it is peered with. About $73 a month over two AZs ($37 in one).
 * - `existing`: a VPC you have (`-c vpcId=…`), used as it is.
 */
export type NetworkLayout = 'nat-instance' | 'nat-gateway' | 'endpoints' | 'existing';

export const NETWORK_LAYOUTS: readonly NetworkLayout[] = [
  'nat-instance',
  'nat-gateway',
  'endpoints',
  'existing',
];

/** The interface endpoints the `endpoints` layout needs (infra/grid-network.ts). */
export const INTERFACE_ENDPOINTS = ['ecs', 'ecr.api', 'ecr.dkr', 'logs', 'secretsmanager'] as const;

/** Whether browsers and the router reach the internet (an existing VPC: assumed, it cannot be seen). */
export function hasInternet(layout: NetworkLayout): boolean {
  return layout !== 'endpoints';
}
