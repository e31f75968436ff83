/**
 * eks pools with a video recorder (infra/examples/eks-pool-video.json): the recordings bucket, one role EKS
 * Pod Identity hands the recorder pods (trusted by pods.eks.amazonaws.com only, allowed only to put videos),
 * the Pod Identity association of the pool's service account, the bucket and Region in GRIDGATE_DEPLOYMENT,
 * and cdk-nag clean.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { clusterVpc, exampleEdits } from './eks-cluster-fixture';
import { gridStack, logicalId, ROOT } from './grid-stack-fixture';

const EXAMPLE = join(ROOT, 'infra/examples/eks-pool-video.json');
const ASSOCIATION = 'AWS::EKS::PodIdentityAssociation';

const exampleWith = exampleEdits(EXAMPLE);

const stack = gridStack({ configFile: EXAMPLE, network: { vpc: clusterVpc() } });
const template = Template.fromStack(stack);
const bucket = logicalId(template, 'AWS::S3::Bucket', 'RecordingsBucket');
const recorderRole = logicalId(template, 'AWS::IAM::Role', 'EksRecordersRole');
const videos = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, '/videos/*']] };
const logs = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, '/logs/*']] };

/** The policy statements attached to `role`. */
function statementsOf(t: Template, role: string) {
  return Object.values(t.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: role }]))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

describe('an eks pool with a recorder (eks-pool-video example)', () => {
  it('makes the recordings bucket, expiring videos and kept pod logs after the retention', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: [
          Match.objectLike({ Prefix: 'videos/', ExpirationInDays: 3 }),
          { Id: 'expire-logs', Prefix: 'logs/', ExpirationInDays: 3, Status: 'Enabled' },
        ],
      },
    });
  });

  it('lets the functions that delete pods put their logs under logs/ only, the router read them, and the cleanup delete videos', () => {
    const s3Of = (description: string) => {
      const fn = Object.values(template.findResources('AWS::Lambda::Function')).find((resource) =>
        String(resource.Properties.Description).startsWith(description),
      );
      return statementsOf(template, fn?.Properties.Role['Fn::GetAtt'][0]).filter(
        (statement: { Action: unknown }) => String(statement.Action).startsWith('s3:'),
      );
    };
    const put = { Effect: 'Allow', Action: 's3:PutObject', Resource: logs };
    expect(s3Of('gridgate router')).toEqual([
      { Effect: 'Allow', Action: 's3:GetObject', Resource: [logs, videos] },
      put,
    ]);
    // The cleanup deletes the videos sessions were not to keep (recording.keep: failed), and nothing else.
    expect(s3Of('gridgate cleanup')).toEqual([
      { Effect: 'Allow', Action: 's3:DeleteObject', Resource: videos },
      put,
    ]);
  });

  it('makes one role only EKS Pod Identity may assume, with the session tags it sets', () => {
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          {
            Effect: 'Allow',
            Principal: { Service: 'pods.eks.amazonaws.com' },
            Action: ['sts:AssumeRole', 'sts:TagSession'],
          },
        ],
      },
    });
    expect(
      template.findResources('AWS::IAM::Role')[recorderRole]?.Properties.ManagedPolicyArns,
    ).toBeUndefined();
  });

  it('lets that role only put videos under videos/ (and abort their uploads), nothing else', () => {
    expect(statementsOf(template, recorderRole)).toEqual([
      { Effect: 'Allow', Action: ['s3:AbortMultipartUpload', 's3:PutObject'], Resource: videos },
    ]);
  });

  it("gives it to the pool's service account in the pool's namespace on the pool's cluster", () => {
    template.resourceCountIs(ASSOCIATION, 1);
    template.hasResourceProperties(ASSOCIATION, {
      ClusterName: 'platform',
      Namespace: 'gridgate',
      ServiceAccount: 'gridgate-recorder',
      RoleArn: { 'Fn::GetAtt': [recorderRole, 'Arn'] },
    });
  });

  it('tells the router the bucket and its Region, which its pods upload to', () => {
    const router = Object.values(template.findResources('AWS::Lambda::Function')).find((resource) =>
      String(resource.Properties.Description).startsWith('gridgate router'),
    );
    const deployment = JSON.stringify(router?.Properties.Environment.Variables.GRIDGATE_DEPLOYMENT);
    expect(deployment).toContain('\\"recordingsBucket\\":\\"');
    expect(deployment).toContain('\\"region\\":\\"');
    expect(deployment).toContain('AWS::Region');
    // The router reads the videos back (a HeadObject, then a presigned GET).
    const reads = Object.values(template.findResources('AWS::IAM::Policy'))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
      .filter((statement: { Action: unknown }) => statement.Action === 's3:GetObject');
    expect(reads).toEqual([{ Effect: 'Allow', Action: 's3:GetObject', Resource: [logs, videos] }]);
  });

  it('says at synth that the service account and the Pod Identity Agent are left to the cluster owner', () => {
    const annotations = Annotations.fromStack(stack);
    expect(
      annotations.findInfo(
        '*',
        Match.stringLikeRegexp(
          'create service account gridgate-recorder in namespace gridgate.*eks-pod-identity-agent',
        ),
      ),
    ).toHaveLength(1);
    expect(annotations.findWarning('*', Match.anyValue())).toEqual([]);
  });

  it('passes cdk-nag AwsSolutions with only written-down acknowledgements', () => {
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });

  it('makes one association per cluster, namespace and service account, however many pools share them', () => {
    const file = exampleWith('two-pools.json', (pools) => {
      pools.spot = { ...pools.pods, weight: 2 };
      pools.other = { ...pools.pods, namespace: 'browsers' };
    });
    const config = JSON.parse(readFileSync(file, 'utf8'));
    config.browsers.chrome.versions.stable.pools = ['pods', 'spot', 'other'];
    writeFileSync(file, JSON.stringify(config));
    const two = Template.fromStack(gridStack({ configFile: file, network: { vpc: clusterVpc() } }));
    two.resourceCountIs(ASSOCIATION, 2);
    two.resourceCountIs('AWS::S3::Bucket', 1);
    two.hasResourceProperties(ASSOCIATION, { Namespace: 'browsers', ServiceAccount: 'gridgate-recorder' });
  });
});

describe('eks pools without a recorder', () => {
  const plainStack = gridStack({
    configFile: join(ROOT, 'infra/examples/eks-pool.json'),
    network: { vpc: clusterVpc() },
  });

  it('get the bucket for their pods’ logs only (logs/ expiring, put by what deletes pods, read by the router), with cdk-nag clean', () => {
    const plain = Template.fromStack(plainStack);
    plain.resourceCountIs('AWS::S3::Bucket', 1);
    const [bucketResource] = Object.values(plain.findResources('AWS::S3::Bucket'));
    expect(bucketResource?.Properties.LifecycleConfiguration.Rules).toEqual([
      expect.objectContaining({ Prefix: 'videos/' }),
      // The example keeps recording.retention's default, a day.
      { Id: 'expire-logs', Prefix: 'logs/', ExpirationInDays: 1, Status: 'Enabled' },
    ]);
    const actions = Object.values(plain.findResources('AWS::IAM::Policy'))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
      .filter((statement: { Action: unknown }) => String(statement.Action).startsWith('s3:'))
      .map(
        (statement: { Action: string; Resource: unknown }) =>
          `${statement.Action} ${JSON.stringify(statement.Resource)}`,
      );
    expect(actions.filter((action) => action.startsWith('s3:PutObject'))).toHaveLength(2);
    expect(actions.every((action) => !action.includes('s3:PutObject') || action.includes('/logs/*'))).toBe(
      true,
    );
    expect(new AwsSolutionsChecks().validateScope(plainStack).violations).toEqual([]);
  });

  it('get no recorder role and no association, as before', () => {
    const plain = Template.fromStack(plainStack);
    plain.resourceCountIs(ASSOCIATION, 0);
    const trusts = Object.values(plain.findResources('AWS::IAM::Role')).map((role) =>
      JSON.stringify(role.Properties.AssumeRolePolicyDocument),
    );
    expect(trusts.filter((trust) => trust.includes('pods.eks.amazonaws.com'))).toEqual([]);
  });
});

describe('docs/video-and-logs.md, eks pools', () => {
  const page = readFileSync(join(ROOT, 'docs/video-and-logs.md'), 'utf8');
  const section = page.slice(page.indexOf('## eks pools'), page.indexOf('## hub pools'));
  const blocks = [...section.matchAll(/```json\n([\s\S]*?)\n```/g)].map((match) =>
    JSON.parse(match[1] ?? 'null'),
  );

  it('shows the example config as it is in infra/examples', () => {
    expect(blocks[0]).toEqual(JSON.parse(readFileSync(EXAMPLE, 'utf8')));
  });

  it('gives clusters the stack does not set up the trust policy and the one statement the stack’s role has', () => {
    const role = template.findResources('AWS::IAM::Role')[recorderRole];
    expect(blocks[1]).toEqual(role?.Properties.AssumeRolePolicyDocument);
    const [statement] = statementsOf(template, recorderRole);
    expect(statement.Resource).toEqual(videos);
    expect(blocks[2]).toEqual({
      Version: '2012-10-17',
      Statement: [{ ...statement, Resource: 'arn:aws:s3:::BUCKET/videos/*' }],
    });
    expect(blocks).toHaveLength(3);
  });
});
