/**
 * The config's `heads` section: router heads (the Node server) as an ECS Fargate service behind an
 * Application Load Balancer, which the CDK app deploys with `-c frontDoor=service`. Only the CDK app reads
 * it; a head itself ignores it. Heads carry WebSockets (BiDi, CDP, the status page's VNC view), which the
 * Lambda front doors cannot.
 */
import * as z from 'zod';

/** Fargate's task sizes: CPU units (1024 = 1 vCPU); memory is checked by the CDK app against them. */
const FARGATE_CPU = [256, 512, 1024, 2048, 4096] as const;

export const headsSchema = z
  .strictObject({
    min: z.number().int().min(1).meta({
      description:
        'Heads always running (Fargate tasks): the idle cost of this front door, with the load balancer.',
    }),
    max: z.number().int().min(1).meta({ description: 'Most heads the service scales out to.' }),
    onDemand: z.number().int().min(0).default(1).meta({
      description:
        'Heads on on-demand Fargate (the capacity provider base), so a Spot reclaim never takes every head; the rest run on Fargate Spot.',
    }),
    cpu: z
      .union(FARGATE_CPU.map((cpu) => z.literal(cpu)))
      .default(512)
      .meta({ description: "A head's CPU units (1024 = 1 vCPU)." }),
    memory: z.number().int().positive().default(1024).meta({ description: "A head's memory in MiB." }),
    cpuTarget: z.number().int().min(10).max(90).default(60).meta({
      description: 'Average CPU (percent) the service scales out above and in below.',
    }),
    domainName: z.string().min(1).optional().meta({
      description:
        'The name clients use (e.g. grid.example.com): with certificateArn, the load balancer listens on HTTPS and the grid hands out https:// and wss:// URLs on it. Point its DNS at the LoadBalancerDnsName output.',
    }),
    certificateArn: z
      .string()
      .regex(
        /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[A-Za-z0-9-]+$/,
        'must be an ACM certificate ARN',
      )
      .optional()
      .meta({ description: "An ACM certificate for domainName, in the stack's Region." }),
  })
  .refine((heads) => heads.min <= heads.max, { message: 'min must not be above max', path: ['min'] })
  .refine((heads) => heads.onDemand <= heads.min, {
    message: 'onDemand must not be above min (the on-demand heads are part of the minimum)',
    path: ['onDemand'],
  })
  .refine((heads) => (heads.domainName === undefined) === (heads.certificateArn === undefined), {
    message: 'domainName and certificateArn go together: HTTPS on that name needs its certificate',
    path: ['certificateArn'],
  })
  .meta({
    description:
      'Router heads as an ECS Fargate service behind a load balancer (`cdk deploy -c frontDoor=service`): WebSockets on AWS.',
  });

export type HeadsConfig = z.output<typeof headsSchema>;
