/**
 * The config of an ecs pool: one Fargate task per session, and the warm tasks kept ahead of demand; and what
 * gridgate knows of ecs pools from their config alone. Pure, so the config's `pools` union (core/config-pools.ts)
 * is built from it.
 */
// A namespace import lets bundlers keep only what is used; `{ z }` keeps all of zod, every locale too.
import * as z from 'zod';
import { containerPorts, poolCommon, recorderImage } from '../../core/config-pool-common';
import { cidr, duration } from '../../core/config-values';
import { type NamedPool, poolConfigKind } from '../../core/pool-config-traits';
import { seleniumNodeConfigTraits } from '../selenium-node/selenium-node-pool-config';

const ecsWarm = z
  .strictObject({
    min: z
      .number()
      .int()
      .nonnegative()
      .default(0)
      .meta({ description: 'Idle tasks kept even without demand.' }),
    max: z.number().int().nonnegative().default(0).meta({
      description: 'Most idle tasks kept, however high recent demand was (never above the free capacity).',
    }),
    idleTtl: duration.prefault('15m').meta({ description: 'An idle task unclaimed this long is stopped.' }),
  })
  .refine((warm) => warm.min <= warm.max, { message: 'min must not be above max', path: ['min'] })
  .meta({ description: 'Pre-started tasks of an ecs pool, sized from recent demand within [min, max].' });

/** The docker-selenium video recorder sidecar of an ecs pool's tasks. */
const videoRecorder = z.strictObject({ image: recorderImage });

export const ecsPool = z
  .strictObject({
    kind: z.literal('ecs'),
    ...poolCommon,
    cluster: z.string().min(1).optional().meta({
      description: 'ECS cluster name or ARN. The CDK app sets it for the pools it deploys.',
    }),
    taskDefinition: z.string().min(1).optional().meta({
      description: 'Task definition (family, family:revision or ARN). The CDK app sets it.',
    }),
    containerName: z
      .string()
      .min(1)
      .default('browser')
      .meta({ description: 'The task definition container that runs the browser.' }),
    ...containerPorts,
    subnets: z.array(z.string().min(1)).min(1).optional().meta({
      description: 'Subnets the tasks run in (awsvpc), spread over several AZs. The CDK app sets them.',
    }),
    securityGroups: z.array(z.string().min(1)).min(1).optional().meta({
      description: 'Security groups of the tasks. The CDK app sets them.',
    }),
    assignPublicIp: z
      .boolean()
      .default(false)
      .meta({ description: 'Give tasks a public IP (public subnets without NAT or endpoints).' }),
    networks: z.array(cidr).min(1).optional().meta({
      description:
        "CIDR blocks the tasks' private IPs lie in (the VPC's); session IDs naming any other address are refused. The CDK app sets them.",
    }),
    spot: z.boolean().default(true).meta({
      description: 'Run on FARGATE_SPOT first and fall back to FARGATE when Spot has no capacity.',
    }),
    image: z.string().min(1).default('selenium/standalone-chrome:latest').meta({
      description:
        "Browser image the CDK app builds the task definition from: a docker-selenium image, or 'build:images/chromium' for gridgate's smaller Chromium-and-chromedriver image (no VNC, no recorder; docs/aws.md).",
    }),
    cpu: z
      .number()
      .int()
      .positive()
      .default(1024)
      .meta({ description: 'Task CPU units (1024 = 1 vCPU), for the CDK app.' }),
    memory: z
      .number()
      .int()
      .positive()
      .default(2048)
      .meta({ description: 'Task memory in MiB, for the CDK app.' }),
    architecture: z
      .enum(['x86_64', 'arm64'])
      .default('x86_64')
      .meta({ description: 'CPU architecture; Fargate Spot is x86_64 only.' }),
    warm: ecsWarm.optional().meta({
      description:
        'Idle tasks kept RUNNING and driver-ready by the cleanup, each claimed by one new session; absent or max 0 keeps none.',
    }),
    recorder: videoRecorder.optional().meta({
      description:
        "docker-selenium's video recorder beside the browser in every task, uploading the videos of sessions that ask (or of all, with video) to the stack's recordings bucket; absent: no videos.",
    }),
  })
  .meta({ description: 'One AWS Fargate task per session (Spot first), started with ECS RunTask.' });

/** An ecs pool whose `warm` has a max above 0: only those keep warm tasks, in the store, claimed and counted. */
export const keepsWarmTasks = (pool: NamedPool<typeof ecsPool>) => (pool.warm?.max ?? 0) > 0;

export const ecsPoolConfig = poolConfigKind(ecsPool, {
  ...seleniumNodeConfigTraits,
  keepsWarm: keepsWarmTasks,
  inputProblems: (input) =>
    input.architecture === 'arm64' && input.spot !== false
      ? [{ path: ['spot'], message: 'Fargate Spot runs x86_64 only: set "spot": false for an arm64 pool' }]
      : [],
});
