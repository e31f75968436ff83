/**
 * What the stack tests of eks pools build on: the cluster's VPC, as `-c vpcId=…` would look it up, and an
 * example config written again with its pools changed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { type IVpc, Vpc } from 'aws-cdk-lib/aws-ec2';
import { afterAll } from 'vitest';

export function clusterVpc(): IVpc {
  return Vpc.fromVpcAttributes(new Stack(), 'ClusterVpc', {
    vpcId: 'vpc-0123',
    vpcCidrBlock: '10.40.0.0/16',
    availabilityZones: ['eu-west-1a', 'eu-west-1b'],
    privateSubnetIds: ['subnet-a', 'subnet-b'],
  });
}

export type PoolsChange = (pools: Record<string, Record<string, unknown>>) => void;

/**
 * Call at the top of a test file: `exampleWith(name, change)` then writes `example` with its pools changed
 * (`undefined` removes a key) into a directory deleted after the file's tests, and answers the file's path.
 */
export function exampleEdits(example: string): (name: string, change: PoolsChange) => string {
  const dir = mkdtempSync(join(tmpdir(), 'gridgate-eks-infra-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return (name, change) => {
    const config = JSON.parse(readFileSync(example, 'utf8'));
    change(config.pools);
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(config));
    return path;
  };
}
