import { describe, expect, it } from 'vitest';
import { EmfMetrics } from '../../functions/adapters/aws/emf-metrics';
import { useEmfOutput } from '../support/emf-output';

const records = useEmfOutput();

describe('EmfMetrics', () => {
  it('writes a count as one EMF record with its dimensions and the service', () => {
    new EmfMetrics({ service: 'router' }).count('SessionsCreated', { pool: 'fargate', browser: 'chrome' });
    const [record] = records();
    expect(records()).toHaveLength(1);
    expect(record?._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'gridgate',
        Dimensions: [['service', 'pool', 'browser']],
        Metrics: [{ Name: 'SessionsCreated', Unit: 'Count' }],
      },
    ]);
    expect(record).toMatchObject({
      service: 'router',
      pool: 'fargate',
      browser: 'chrome',
      SessionsCreated: 1,
    });
  });

  it('writes new-session latency in milliseconds at 1-second resolution', () => {
    new EmfMetrics({ service: 'router' }).timing('NewSessionLatency', 41_250, {
      pool: 'fargate',
      outcome: 'created',
    });
    const [record] = records();
    expect(record?._aws.CloudWatchMetrics[0]?.Metrics).toEqual([
      { Name: 'NewSessionLatency', Unit: 'Milliseconds', StorageResolution: 1 },
    ]);
    expect(record?.NewSessionLatency).toBe(41_250);
  });

  it('gives each measurement its own dimensions, leaving out absent ones', () => {
    const metrics = new EmfMetrics({ service: 'cleanup' });
    metrics.count('OrphansReaped', { reason: 'max age' }, 3);
    metrics.count('OrphansReaped', { reason: 'no session', pool: undefined, stage: '' });
    expect(
      records().map((r) => [r._aws.CloudWatchMetrics[0]?.Dimensions, r.reason, r.OrphansReaped]),
    ).toEqual([
      [[['service', 'reason']], 'max age', 3],
      [[['service', 'reason']], 'no session', 1],
    ]);
  });

  it('never puts a session ID or user into a dimension: the port has no such label', () => {
    new EmfMetrics({ service: 'router' }).gauge('ActiveSessions', 7, { pool: 'fargate' });
    expect(Object.keys(records()[0] ?? {}).sort()).toEqual(['ActiveSessions', '_aws', 'pool', 'service']);
  });
});
