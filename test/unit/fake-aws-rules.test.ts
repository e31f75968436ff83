/**
 * The rules the fakes of AWS and Kubernetes enforce refuse what those APIs document they refuse, and take
 * what gridgate sends: a rule that refuses nothing, or a fake that refuses gridgate's own calls, fails here.
 */
import { GetLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import {
  DescribeTasksCommand,
  ListTasksCommand,
  RunTaskCommand,
  TagResourceCommand,
} from '@aws-sdk/client-ecs';
import { describe, expect, it } from 'vitest';
import { STARTED_BY } from '../../functions/pools/ecs/task-tags';
import {
  GET_LOG_EVENTS_PER_SECOND,
  refuseGetLogEvents,
  refuseToken,
} from '../support/cloudwatch-logs-api-rules';
import {
  refuseAnyEcsCall,
  refuseDescribeTasks,
  refuseListTasks,
  refuseRunTask,
  refuseTags,
} from '../support/ecs-api-rules';
import { FakeCloudWatchLogs } from '../support/fake-cloudwatch-logs';
import { podProblems, podTypeProblems } from '../support/kubernetes-api-rules';

const RUN_TASK = {
  cluster: 'browsers',
  taskDefinition: 'gridgate-chrome:1',
  startedBy: STARTED_BY,
  networkConfiguration: { awsvpcConfiguration: { subnets: ['subnet-a'], securityGroups: ['sg-a'] } },
  capacityProviderStrategy: [{ capacityProvider: 'FARGATE_SPOT', weight: 1 }],
  clientToken: 'k1-0',
  tags: [{ key: 'gridgate', value: 'true' }],
};
const tags = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: 'v' }));

describe('ECS', () => {
  it('refuses ListTasks with startedBy and another filter, as ECS does', () => {
    expect(() => refuseListTasks({ cluster: 'c', startedBy: STARTED_BY, desiredStatus: 'RUNNING' })).toThrow(
      expect.objectContaining({ type: 'InvalidParameterException' }),
    );
    expect(() => refuseListTasks({ cluster: 'c', startedBy: STARTED_BY, maxResults: 100 })).not.toThrow();
    expect(() => refuseListTasks({ cluster: 'c', desiredStatus: 'STOPPED', family: 'f' })).not.toThrow();
    expect(() => refuseListTasks({ maxResults: 101 })).toThrow(/maxResults/);
  });

  it('refuses DescribeTasks of none or of more than 100 tasks', () => {
    expect(() => refuseDescribeTasks({ tasks: [] })).toThrow();
    expect(() => refuseDescribeTasks({ tasks: Array(101).fill('t') })).toThrow();
    expect(() => refuseDescribeTasks({ tasks: Array(100).fill('t'), include: ['TAGS'] })).not.toThrow();
  });

  it('refuses RunTask inputs past their documented limits', () => {
    expect(() => refuseRunTask(RUN_TASK, ['browser'])).not.toThrow();
    const environment = [{ name: 'TZ', value: 'Australia/Eucla' }];
    const twoContainers = {
      ...RUN_TASK,
      overrides: {
        containerOverrides: [
          { name: 'browser', environment },
          { name: 'video', environment },
        ],
      },
    };
    expect(() => refuseRunTask(twoContainers, ['browser', 'video'])).not.toThrow();
    expect(() => refuseRunTask(twoContainers, ['browser'])).toThrow(/video is not a container/);
    const refused = [
      { count: 11 },
      { startedBy: 'x'.repeat(129) },
      { startedBy: 'grid gate' },
      { clientToken: 'x'.repeat(65) },
      { launchType: 'FARGATE' },
      { overrides: { containerOverrides: [{ name: 'browser', command: ['x'.repeat(9000)] }] } },
      {
        overrides: {
          containerOverrides: [{ name: 'browser', environment: [{ name: 'BIG', value: 'x'.repeat(8200) }] }],
        },
      },
      { overrides: { containerOverrides: [{ name: 'sidecar' }] } },
      { overrides: { containerOverrides: [{ environment: [{ name: 'TZ', value: 'UTC' }] }] } },
      { overrides: { containerOverrides: [{ name: 'browser', environment: [{ name: 'W', value: 1024 }] }] } },
      { tags: tags(51) },
      {
        capacityProviderStrategy: [
          { capacityProvider: 'FARGATE', base: 1 },
          { capacityProvider: 'FARGATE_SPOT', base: 1 },
        ],
      },
    ];
    for (const change of refused)
      expect(() => refuseRunTask({ ...RUN_TASK, ...change }, ['browser'])).toThrow();
  });

  it('refuses tags ECS refuses: too many, too long, reserved, repeated or of other characters', () => {
    expect(() => refuseTags(tags(50))).not.toThrow();
    expect(() => refuseTags([{ key: 'k'.repeat(128), value: 'v'.repeat(256) }])).not.toThrow();
    for (const bad of [
      [{ key: 'k'.repeat(129), value: 'v' }],
      [{ key: 'k', value: 'v'.repeat(257) }],
      [{ key: 'aws:owner', value: 'v' }],
      [
        { key: 'k', value: 'a' },
        { key: 'k', value: 'b' },
      ],
      [{ key: 'k', value: 'semi;colon' }],
    ]) {
      expect(() => refuseTags(bad)).toThrow();
    }
  });

  it('checks every call a mock received, and knows no call it has no rules for', () => {
    const call = (command: object) => ({ args: [command] as const }) as never;
    expect(() => refuseAnyEcsCall([call(new RunTaskCommand({ ...RUN_TASK, count: 11 } as never))])).toThrow(
      /count/,
    );
    expect(() =>
      refuseAnyEcsCall([
        call(new ListTasksCommand({ cluster: 'c', startedBy: STARTED_BY })),
        call(new DescribeTasksCommand({ cluster: 'c', tasks: ['t'] })),
        call(
          new TagResourceCommand({ resourceArn: 'arn', tags: [{ key: 'gridgate:warm', value: 'claimed' }] }),
        ),
      ]),
    ).not.toThrow();
    expect(() =>
      refuseAnyEcsCall([call({ input: {}, constructor: { name: 'DeleteClusterCommand' } })]),
    ).toThrow(/no ECS rules/);
  });
});

describe('Kubernetes', () => {
  const pod = {
    metadata: { name: 'gridgate-abc123-1f2e3d', labels: { 'gridgate.dev/session': 'abc' }, annotations: {} },
    spec: { containers: [{ name: 'browser', ports: [{ name: 'webdriver', containerPort: 4444 }] }] },
  };

  it('takes a valid pod and refuses names, labels and ports the API server refuses', () => {
    expect(podProblems(pod)).toEqual([]);
    expect(podProblems({ ...pod, metadata: { ...pod.metadata, name: 'Upper_Case' } })).toHaveLength(1);
    expect(
      podProblems({ ...pod, metadata: { ...pod.metadata, labels: { k: 'v'.repeat(64) } } }),
    ).toHaveLength(1);
    expect(podProblems({ ...pod, metadata: { ...pod.metadata, labels: { 'bad key!': 'v' } } })).toHaveLength(
      1,
    );
    const longPort = {
      containers: [{ name: 'browser', ports: [{ name: 'webdriver-port-1', containerPort: 4444 }] }],
    };
    expect(podProblems({ ...pod, spec: longPort })).toHaveLength(1);
    const annotations = { big: 'x'.repeat(256 * 1024) };
    expect(podProblems({ ...pod, metadata: { ...pod.metadata, annotations } })).toHaveLength(1);
  });
});

describe('Kubernetes: a pod with a recorder beside the browser', () => {
  const containers = [
    {
      name: 'browser',
      env: [{ name: 'SE_NODE_SESSION_TIMEOUT', value: '300' }],
      volumeMounts: [{ name: 'dshm', mountPath: '/dev/shm' }],
      lifecycle: { preStop: { exec: { command: ['sleep', '5'] } } },
    },
    { name: 'video', env: [{ name: 'SE_NODE_PORT', value: '4444' }] },
  ];
  const pod = {
    metadata: { name: 'gg-abc-1f2e3d' },
    spec: {
      serviceAccountName: 'gridgate-recorder',
      terminationGracePeriodSeconds: 60,
      containers,
      volumes: [{ name: 'dshm' }],
    },
  };
  const withContainers = (changed: unknown[]) => ({ ...pod, spec: { ...pod.spec, containers: changed } });
  const [browser, video] = containers as unknown as [Record<string, unknown>, Record<string, unknown>];

  it('takes it, and refuses what validation.go refuses, each by its field', () => {
    expect(podProblems(pod)).toEqual([]);
    expect(podTypeProblems(pod)).toEqual([]);
    expect(podProblems(withContainers([browser, { ...video, name: 'browser' }]))).toEqual([
      'spec.containers[1].name: Duplicate value: "browser"',
    ]);
    expect(
      podProblems(
        withContainers([{ ...browser, volumeMounts: [{ name: 'videos', mountPath: '/videos' }] }, video]),
      ),
    ).toEqual(['spec.containers[0].volumeMounts[0].name: Not found: "videos"']);
    expect(podProblems(withContainers([{ ...browser, lifecycle: { preStop: {} } }, video]))).toEqual([
      'spec.containers[0].lifecycle.preStop: Required value: must specify a handler type',
    ]);
    expect(
      podProblems(withContainers([{ ...browser, lifecycle: { preStop: { exec: { command: [] } } } }, video])),
    ).toEqual(['spec.containers[0].lifecycle.preStop.exec.command: Required value']);
    expect(
      podProblems(
        withContainers([
          { ...browser, lifecycle: { preStop: { exec: { command: ['true'] }, sleep: { seconds: 1 } } } },
          video,
        ]),
      ),
    ).toEqual([
      'spec.containers[0].lifecycle.preStop.sleep: Forbidden: may not specify more than 1 handler type',
    ]);
    expect(
      podProblems(withContainers([browser, { ...video, env: [{ name: '1PORT', value: 'x' }] }])),
    ).toEqual(['spec.containers[1].env[0].name: Invalid value: "1PORT"']);
    expect(podProblems({ ...pod, spec: { ...pod.spec, serviceAccountName: 'Video_Recorder' } })).toEqual([
      'spec.serviceAccountName: Invalid value: "Video_Recorder"',
    ]);
  });

  it('cannot decode an env value that is not a string or a grace period that is not an integer', () => {
    expect(
      podTypeProblems(withContainers([browser, { ...video, env: [{ name: 'SE_NODE_PORT', value: 4444 }] }])),
    ).toEqual(['spec.containers[1].env[0].value: cannot unmarshal number into string']);
    expect(podTypeProblems({ ...pod, spec: { ...pod.spec, terminationGracePeriodSeconds: '60' } })).toEqual([
      'spec.terminationGracePeriodSeconds: cannot unmarshal string into int64',
    ]);
  });
});

describe('CloudWatch Logs', () => {
  // What CloudWatchBrowserLogs sends (pools/ecs/cloudwatch-browser-logs.ts).
  const read = {
    logGroupName: 'Gridgate-BrowsersLogs66D7675E-AbC',
    logStreamName: 'chrome-spot/browser/0123456789abcdef0123456789abcdef',
    startFromHead: true,
    endTime: 1_764_000_000_000,
  };
  const refused = (input: object, type = 'InvalidParameterException') =>
    expect(() => refuseGetLogEvents(input)).toThrow(expect.objectContaining({ type }));

  it('takes what gridgate sends and refuses what GetLogEvents refuses', () => {
    expect(() => refuseGetLogEvents(read)).not.toThrow();
    expect(() => refuseGetLogEvents({ ...read, limit: 10_000 })).not.toThrow();
    refused({ ...read, limit: 10_001 });
    refused({ ...read, limit: 0 });
    refused({ ...read, logGroupIdentifier: read.logGroupName });
    refused({ ...read, logGroupName: undefined });
    refused({ ...read, logGroupName: 'has space' });
    refused({ ...read, logGroupName: 'g'.repeat(513) });
    refused({ ...read, logStreamName: 'a:b' });
    refused({ ...read, logStreamName: 'a*' });
    refused({ ...read, logStreamName: '' });
    refused({ ...read, nextToken: '' });
    refused({ ...read, endTime: -1 });
  });

  it('refuses a token of another stream, and a forward token without startFromHead', () => {
    const mine = { stream: `${read.logGroupName}:${read.logStreamName}`, forward: true };
    expect(() => refuseToken({ ...read, nextToken: 'f/x' }, mine)).not.toThrow();
    expect(() => refuseToken({ ...read, nextToken: 'f/x' }, undefined)).toThrow(/nextToken is invalid/);
    expect(() => refuseToken({ ...read, nextToken: 'f/x' }, { ...mine, stream: 'g:other' })).toThrow(
      /nextToken is invalid/,
    );
    expect(() => refuseToken({ ...read, startFromHead: false, nextToken: 'f/x' }, mine)).toThrow(
      /startFromHead/,
    );
  });

  it('answers a real client with the service’s error types over the wire', async () => {
    const api = await FakeCloudWatchLogs.start();
    const client = api.client();
    try {
      await expect(client.send(new GetLogEventsCommand(read))).rejects.toMatchObject({
        name: 'ResourceNotFoundException',
        message: 'The specified log group does not exist.',
      });
      api.createLogGroup(read.logGroupName);
      await expect(client.send(new GetLogEventsCommand(read))).rejects.toMatchObject({
        name: 'ResourceNotFoundException',
        message: 'The specified log stream does not exist.',
      });
      api.log(read.logGroupName, read.logStreamName, ['one'], 1);
      await expect(client.send(new GetLogEventsCommand({ ...read, limit: 20_000 }))).rejects.toMatchObject({
        name: 'InvalidParameterException',
        $metadata: { httpStatusCode: 400 },
      });
      api.throttle(1);
      await expect(client.send(new GetLogEventsCommand(read))).rejects.toMatchObject({
        name: 'ThrottlingException',
        $metadata: { httpStatusCode: 400 },
      });
      const page = await client.send(new GetLogEventsCommand(read));
      expect(page.events?.map((event) => event.message)).toEqual(['one']);
      // The stream's end: the token passed comes back.
      const end = await client.send(new GetLogEventsCommand({ ...read, nextToken: page.nextForwardToken }));
      expect(end).toMatchObject({ events: [], nextForwardToken: page.nextForwardToken });
    } finally {
      client.destroy();
      await api.close();
    }
  });

  it('throttles calls past the per-second quota, as the service does, and takes them again a second on', async () => {
    let now = 1_000_000;
    const api = await FakeCloudWatchLogs.start({ clock: () => now });
    const client = api.client();
    try {
      api.createLogGroup(read.logGroupName);
      api.log(read.logGroupName, read.logStreamName, ['one'], 1);
      const answers: string[] = [];
      for (let i = 0; i < GET_LOG_EVENTS_PER_SECOND + 2; i++) {
        answers.push(
          await client.send(new GetLogEventsCommand(read)).then(
            () => 'taken',
            (error: Error) => error.name,
          ),
        );
        now += 10;
      }
      expect(answers).toEqual([
        ...Array(GET_LOG_EVENTS_PER_SECOND).fill('taken'),
        'ThrottlingException',
        'ThrottlingException',
      ]);
      expect(api.throttled).toBe(2);
      // A second after the first call, its place in the quota is free again.
      now = 1_000_000 + 1000;
      const page = await client.send(new GetLogEventsCommand(read));
      expect(page.events?.map((event) => event.message)).toEqual(['one']);
    } finally {
      client.destroy();
      await api.close();
    }
  });
});
