import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../functions/core/config';
import { applyDeployment, parseDeployment } from '../../functions/core/deployment';

const FILE = {
  browsers: { chrome: { versions: { '131': { pools: ['fargate'] } } } },
  pools: { fargate: { kind: 'ecs', maxSessions: 20 } },
};
const DEPLOYED = {
  table: 'Gridgate-SessionsTable-1AB2',
  pools: {
    fargate: {
      cluster: 'arn:aws:ecs:eu-west-1:111122223333:cluster/gridgate',
      taskDefinition: 'arn:aws:ecs:eu-west-1:111122223333:task-definition/gridgate-fargate:3',
      subnets: ['subnet-0a', 'subnet-0b'],
      securityGroups: ['sg-0c'],
      networks: ['10.0.0.0/16'],
    },
  },
};

describe('applyDeployment', () => {
  it('gives each deployed pool its cluster, task definition and network, and the store its table', () => {
    const config = parseConfig(applyDeployment(FILE, parseDeployment(JSON.stringify(DEPLOYED))), {
      builtInBrowserVersion: 'stable',
    });
    expect(config.pools.fargate).toMatchObject({ kind: 'ecs', maxSessions: 20, ...DEPLOYED.pools.fargate });
    expect(config.store).toEqual({ kind: 'dynamodb', table: DEPLOYED.table });
  });

  it('refuses a deployed pool the config file does not name', () => {
    const deployment = parseDeployment(JSON.stringify({ pools: { other: DEPLOYED.pools.fargate } }));
    expect(() => applyDeployment(FILE, deployment)).toThrow(
      /GRIDGATE_DEPLOYMENT[\s\S]*pools\.other: the config file has no pool of that name/,
    );
  });

  it('makes a head in a container listen where its deployment says, over the file and the loopback default', () => {
    const deployment = parseDeployment(JSON.stringify({ host: '0.0.0.0' }));
    const parse = (file: object) =>
      parseConfig(applyDeployment(file, deployment), { builtInBrowserVersion: 'stable' }).host;
    expect(parse(FILE)).toBe('0.0.0.0');
    expect(parse({ ...FILE, host: '127.0.0.1' })).toBe('0.0.0.0');
    expect(parseConfig(FILE, { builtInBrowserVersion: 'stable' }).host).toBe('127.0.0.1');
  });

  it('tells each eks pool’s recorder the recordings bucket and its Region, and leaves pools without one alone', () => {
    const file = {
      browsers: { chrome: { versions: { '131': { pools: ['pods', 'plain'] } } } },
      pools: {
        pods: { kind: 'eks', cluster: 'platform', recorder: { image: 'selenium/video:ffmpeg-7.1-20250606' } },
        plain: { kind: 'eks', cluster: 'platform' },
      },
    };
    const deployment = { recordingsBucket: 'gridgate-recordingsbucket-1a2b', region: 'eu-west-1' };
    const config = parseConfig(applyDeployment(file, parseDeployment(JSON.stringify(deployment))), {
      builtInBrowserVersion: 'stable',
    });
    expect(config.pools.pods).toMatchObject({
      recorder: {
        image: 'selenium/video:ffmpeg-7.1-20250606',
        bucket: 'gridgate-recordingsbucket-1a2b',
        region: 'eu-west-1',
      },
    });
    expect(config.pools.plain).not.toHaveProperty('recorder');
  });

  it('gives every eks pool the recordings bucket as where its pods’ logs are kept, unless the file names one', () => {
    const file = {
      browsers: { chrome: { versions: { '131': { pools: ['pods', 'plain', 'own'] } } } },
      pools: {
        pods: { kind: 'eks', cluster: 'platform', recorder: { image: 'selenium/video:ffmpeg-7.1-20250606' } },
        plain: { kind: 'eks', cluster: 'platform' },
        own: { kind: 'eks', cluster: 'platform', logBucket: { bucket: 'team-logs', region: 'us-east-2' } },
      },
    };
    const deployment = { recordingsBucket: 'gridgate-recordingsbucket-1a2b', region: 'eu-west-1' };
    const config = parseConfig(applyDeployment(file, parseDeployment(JSON.stringify(deployment))), {
      builtInBrowserVersion: 'stable',
    });
    const stack = { bucket: 'gridgate-recordingsbucket-1a2b', region: 'eu-west-1' };
    expect(config.pools.pods).toMatchObject({ logBucket: stack });
    expect(config.pools.plain).toMatchObject({ logBucket: stack });
    expect(config.pools.own).toMatchObject({ logBucket: { bucket: 'team-logs', region: 'us-east-2' } });
    expect(parseConfig(file, { builtInBrowserVersion: 'stable' }).pools.plain).not.toHaveProperty(
      'logBucket',
    );
  });

  it('leaves a config alone when nothing is deployed', () => {
    expect(applyDeployment(FILE, parseDeployment('{}'))).toEqual(FILE);
  });
});

describe('parseDeployment', () => {
  it.each([
    ['not JSON', '{', /GRIDGATE_DEPLOYMENT is not a valid gridgate config:\n {2}- is not JSON/],
    [
      'a pool without subnets',
      JSON.stringify({ pools: { p: { ...DEPLOYED.pools.fargate, subnets: [] } } }),
      /pools\.p\.subnets/,
    ],
    ['an unknown key', JSON.stringify({ tables: 'x' }), /Unrecognized key/],
  ])('refuses %s, naming the problem', (_, text, message) => {
    expect(() => parseDeployment(text)).toThrow(ConfigError);
    expect(() => parseDeployment(text)).toThrow(message);
  });
});

describe('applyDeployment and colours', () => {
  it('makes the custom domain a colour base domain unless the file names its own', () => {
    const deployed = parseDeployment(JSON.stringify({ baseDomains: ['grid.example.com'] }));
    expect(applyDeployment({}, deployed)).toEqual({ colors: { baseDomains: ['grid.example.com'] } });
    const own = { colors: { header: 'X-Color', baseDomains: ['qa.example.com'] } };
    expect(applyDeployment(own, deployed)).toEqual(own);
    expect(applyDeployment({ colors: { header: 'X-Color' } }, deployed)).toEqual({
      colors: { header: 'X-Color', baseDomains: ['grid.example.com'] },
    });
  });
});

describe('applyDeployment and the public URL', () => {
  it("gives router heads the load balancer's URL as publicUrl unless the file names its own", () => {
    const deployed = parseDeployment(JSON.stringify({ publicUrl: 'https://grid.example.com' }));
    expect(applyDeployment({}, deployed)).toEqual({ publicUrl: 'https://grid.example.com' });
    const own = { publicUrl: 'https://cdn.example.com' };
    expect(applyDeployment(own, deployed)).toEqual(own);
    expect(() => parseDeployment(JSON.stringify({ publicUrl: 'not a url' }))).toThrow(/publicUrl/);
  });
});
