/** The gridgate config file: one zod schema, parsed at start-up and on each reload, every problem reported with its path. */
// A namespace import lets bundlers keep only what is used; `{ z }` keeps all of zod, every locale too.
import * as z from 'zod';
import { parseDuration } from './duration';

const DURATION = /^(\d+(\.\d+)?(ms|s|m|h))+$/;
const SIZE = /^(\d+)\s*(B|KB|MB|GB)$/i;
const SIZE_FACTOR = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 } as const;

const duration = z
  .string()
  .regex(DURATION, 'must be a duration such as "90s", "5m" or "1h30m"')
  .transform((text) => parseDuration(text) as number)
  .meta({ description: 'A duration: a number with ms, s, m or h, e.g. "90s", "5m", "1h30m".' });

const byteSize = z
  .union([z.number().int().positive(), z.string().regex(SIZE, 'must be a size such as "64MB"')])
  .transform((value) => {
    if (typeof value === 'number') return value;
    const [, count, unit] = SIZE.exec(value) as RegExpExecArray;
    return Number(count) * SIZE_FACTOR[(unit as string).toUpperCase() as keyof typeof SIZE_FACTOR];
  })
  .meta({
    description: 'Bytes, as a number or a string with B, KB, MB or GB (binary multiples), e.g. "64MB".',
  });

const name = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/, 'must be 1–40 letters, digits, ".", "_" or "-"');
const color = z.string().regex(/^[a-z0-9-]{1,63}$/, 'must be 1–63 lower-case letters, digits or "-"');

// An HTTP field name (RFC 9110 §5.1: a token).
const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name such as "X-Grid-Color"');

const poolCommon = {
  weight: z.number().positive().default(1).meta({ description: 'Relative share of new sessions.' }),
  region: z.string().optional().meta({ description: 'Region label; retries move to another region.' }),
  color: color.optional().meta({ description: 'Environment colour this pool serves.' }),
  colorHeader: z
    .union([z.boolean(), headerName], { error: 'must be true, false or an HTTP header name' })
    .optional()
    .meta({
      description:
        "Make the browser send the session's colour on its own requests: true uses colors.header, a string names another header (Chromium only).",
    }),
  maxSessions: z.number().int().positive().default(4).meta({ description: 'Sessions at once in this pool.' }),
  video: z.boolean().optional().meta({
    description:
      "Record a video of every session of this pool (over recording.video); a client's explicit false still wins.",
  }),
  log: z.boolean().optional().meta({
    description:
      "Keep the browser driver's log of every session of this pool (over recording.log); a client's explicit false still wins.",
  }),
};

const localPool = z
  .strictObject({
    kind: z.literal('local'),
    ...poolCommon,
    chromedriver: z.string().default('/usr/bin/chromedriver'),
    chromium: z.string().default('/usr/bin/chromium'),
    headless: z.boolean().default(true).meta({ description: 'Add --headless=new unless the client set it.' }),
    args: z
      .array(z.string())
      .default([])
      .meta({ description: 'Extra Chromium arguments for every session.' }),
    // Left out (undefined) means 0, so configs and pools written out in code need not name it.
    warm: z.number().int().nonnegative().optional().meta({
      default: 0,
      description:
        "Browsers kept ready ahead of demand: each a chromedriver plus a Chromium already launched with the pool's default arguments. A new session that asks for no launch-time options (extra args, extensions, prefs, proxy, …) takes one and skips the browser's start; others start cold. Each serves exactly one session and is replaced after the hand-over; every one holds an idle Chromium's memory. 0 keeps none.",
    }),
  })
  .meta({ description: 'Chromium started through chromedriver on this machine, one per session.' });

const hubPool = z
  .strictObject({
    kind: z.literal('hub'),
    ...poolCommon,
    url: z
      .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
      .meta({ description: 'The hub with its base path, e.g. "http://hub:4444/wd/hub".' }),
    username: z.string().optional().meta({ description: 'Basic auth user sent to this hub only.' }),
    password: z.string().optional().meta({ description: 'Basic auth password sent to this hub only.' }),
    timeout: duration.optional().meta({
      description: 'Longest one new-session attempt at this hub may take before the next hub is tried.',
    }),
  })
  .meta({ description: 'An existing WebDriver hub (Selenium Grid, Selenoid, ggr) that gridgate routes to.' });

const cidr = z
  .string()
  .regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/, 'must be an IPv4 CIDR block such as "10.0.0.0/16"');

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

/** Where a docker-selenium container (ecs and eks pools) serves WebDriver and noVNC. */
const containerPorts = {
  port: z
    .number()
    .int()
    .min(1)
    .max(65535)
    .default(4444)
    .meta({ description: "The browser container's WebDriver port." }),
  vncPort: z
    .union([z.literal(false), z.number().int().min(0).max(65535)])
    .default(7900)
    .meta({
      description:
        "The browser container's noVNC port (docker-selenium serves it on 7900), for the status page's live view through a Node server; false or 0: none (screenshots only).",
    }),
  vncPassword: z.string().default('secret').meta({
    description:
      "The browser's VNC password (docker-selenium's SE_VNC_PASSWORD, 'secret' unless changed), handed to the status page's viewer.",
  }),
};

const perHour = z.strictObject({ vcpuHour: z.number().nonnegative(), gbHour: z.number().nonnegative() });
const prices = z.strictObject({
  region: z.string().min(1).meta({ description: 'AWS Region the tasks run in, e.g. "us-east-1".' }),
  asOf: z.string().optional().meta({ description: 'When the figures given here were read.' }),
  fargateX86: perHour
    .optional()
    .meta({ description: 'Fargate Linux x86_64, US dollars per vCPU-hour and GB-hour.' }),
  fargateArm: perHour
    .optional()
    .meta({ description: 'Fargate Linux arm64, US dollars per vCPU-hour and GB-hour.' }),
  spotFactor: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .meta({ description: 'Fargate Spot as a fraction of on-demand.' }),
  lambdaArmGbSecond: z
    .number()
    .nonnegative()
    .optional()
    .meta({ description: 'Lambda arm64, per GB-second.' }),
  lambdaRequest: z.number().nonnegative().optional().meta({ description: 'Lambda, per invocation.' }),
  restApiRequest: z.number().nonnegative().optional().meta({ description: 'API Gateway REST, per request.' }),
});

const ecsPool = z
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
    image: z
      .string()
      .min(1)
      .default('selenium/standalone-chrome:latest')
      .meta({ description: 'Browser image the CDK app builds the task definition from.' }),
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
  })
  .meta({ description: 'One AWS Fargate task per session (Spot first), started with ECS RunTask.' });

// Kubernetes names and label values (a DNS-1123 label; a label value may also hold "_" and ".").
const dnsLabel = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'must be 1–63 lower-case letters, digits or "-"');
const labelKey = z
  .string()
  .regex(
    /^([a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?\/)?[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/,
    'must be a Kubernetes label key such as "team" or "example.com/team"',
  );
const labelValue = z
  .string()
  .regex(
    /^([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?$/,
    'must be a Kubernetes label value: up to 63 letters, digits, "-", "_" or ".", starting and ending alphanumeric',
  );
// A resource quantity such as "500m", "1", "2Gi" (the usual subset of Kubernetes' quantity grammar).
const quantity = z
  .string()
  .regex(
    /^\d+(\.\d+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/,
    'must be a Kubernetes quantity such as "500m", "1" or "2Gi"',
  );

const toleration = z
  .strictObject({
    key: z.string().min(1).optional(),
    operator: z.enum(['Equal', 'Exists']).default('Equal'),
    value: z.string().optional(),
    effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
  })
  .meta({ description: 'A pod toleration, e.g. for the taint of a Spot node pool.' });

const eksPool = z
  .strictObject({
    kind: z.literal('eks'),
    ...poolCommon,
    cluster: z.string().min(1).meta({ description: 'EKS cluster name (signed into the API token).' }),
    endpoint: z
      .url({ protocol: /^https$/, error: 'must be an https URL' })
      .optional()
      .meta({
        description:
          'The cluster\'s Kubernetes API URL (`aws eks describe-cluster`: cluster.endpoint). Needed with auth "aws".',
      }),
    certificateAuthority: z.string().min(1).optional().meta({
      description:
        'The cluster\'s CA certificate, base64-encoded PEM (cluster.certificateAuthority.data). Needed with auth "aws".',
    }),
    namespace: dnsLabel.default('gridgate').meta({ description: 'Namespace the browser pods run in.' }),
    image: z
      .string()
      .min(1)
      .default('selenium/standalone-chrome:latest')
      .meta({ description: 'Browser image of the pods (a docker-selenium standalone image).' }),
    cpu: quantity.default('1').meta({ description: 'CPU request (and limit) of each browser pod.' }),
    memory: quantity.default('2Gi').meta({ description: 'Memory request (and limit) of each browser pod.' }),
    fargate: z.boolean().default(false).meta({
      description:
        "The pods run on an EKS Fargate profile: each ended session's record carries its estimated cost (the pod billed as Fargate sizes it, on-demand). Pods on nodes have none: their price is the node's.",
    }),
    nodeSelector: z
      .record(labelKey, labelValue)
      .default({})
      .meta({ description: 'Node labels the pods need, e.g. {"karpenter.sh/capacity-type": "spot"}.' }),
    tolerations: z.array(toleration).default([]).meta({ description: 'Taints the pods tolerate.' }),
    labels: z
      .record(labelKey, labelValue)
      .default({})
      .meta({ description: "Extra labels on every pod (gridgate's own labels win)." }),
    ...containerPorts,
    networks: z.array(cidr).min(1).optional().meta({
      description:
        "CIDR blocks the pods' IPs lie in (with the VPC CNI, the cluster VPC's CIDR); session IDs naming any other address are refused.",
    }),
    auth: z.enum(['aws', 'kubeconfig'], { error: 'must be "aws" or "kubeconfig"' }).default('aws').meta({
      description:
        '"aws": an EKS token signed with the router\'s AWS credentials (an EKS access entry maps its role). "kubeconfig" (Node server only): the server, CA and credentials of a kubeconfig context (tokens, client certificates, exec plugins such as `aws eks get-token`).',
    }),
    kubeconfig: z.string().min(1).optional().meta({
      description:
        'With auth "kubeconfig": the kubeconfig file. Default: $KUBECONFIG, else ~/.kube/config, else the in-cluster service account.',
    }),
    context: z.string().min(1).optional().meta({
      description: 'With auth "kubeconfig": the context to use. Default: the file\'s current-context.',
    }),
    securityGroup: z
      .string()
      .regex(/^sg-[0-9a-f]{8,17}$/, 'must be a security group ID such as "sg-0123456789abcdef0"')
      .optional()
      .meta({
        description:
          "For the CDK app: the security group on the pods' nodes and the API endpoint (the EKS cluster security group, resourcesVpcConfig.clusterSecurityGroupId); it admits the router to `port` and 443.",
      }),
  })
  .meta({ description: 'One Kubernetes pod per session on an EKS cluster.' });

const pool = z.discriminatedUnion('kind', [localPool, hubPool, ecsPool, eksPool]);

const videoSize = z
  .string()
  .regex(/^\d{2,4}x\d{2,4}$/, 'must be a size such as "1280x720"')
  .refine((size) => size.split('x').every((side) => Number(side) % 2 === 0), 'both sides must be even')
  .meta({ description: 'Width x height in pixels; both even (H.264 needs them so).' });

const recording = z
  .strictObject({
    video: z.boolean().default(false).meta({
      description:
        'Record a video of every session (a client may still say false); else only sessions that ask.',
    }),
    log: z.boolean().default(false).meta({
      description: "Keep the browser driver's log of every session; else only sessions that ask.",
    }),
    format: z
      .enum(['mp4', 'webm'], { error: 'must be "mp4" or "webm"' })
      .default('mp4')
      .meta({ description: 'mp4: H.264 in fragmented MP4; webm: VP8.' }),
    fps: z.number().int().min(1).max(30).default(10).meta({ description: 'Frames per second of a video.' }),
    size: videoSize.default('1280x720'),
    directory: z.string().min(1).optional().meta({
      description:
        "Where ended sessions' videos and logs are kept on this machine; default: gridgate-recordings in the temporary directory.",
    }),
    retention: duration
      .prefault('24h')
      .meta({ description: "How long an ended session's video and log are kept." }),
    maxDiskSize: byteSize.prefault('2GB').meta({
      description: "Most disk all kept videos and logs may use; the oldest sessions' go first.",
    }),
    flushTimeout: duration.prefault('10s').meta({
      description:
        'Longest a video may take to be finished once its session ends; then it is cut where it is.',
    }),
  })
  .meta({ description: 'Videos and driver logs of sessions (local pools record them on this machine).' });

const browserVersion = z.strictObject({
  platformName: z.string().default('linux'),
  pools: z.array(name).min(1).meta({ description: 'Pools that serve this version, by name.' }),
});

const browser = z.strictObject({
  aliases: z
    .array(z.string())
    .default([])
    .meta({ description: 'Other browserName values that mean this browser.' }),
  defaultVersion: z.string().optional().meta({ description: 'Used when no browserVersion is asked for.' }),
  versions: z.record(z.string(), browserVersion),
});

// Every version of a browser ("*"), or the versions listed (exact, or a dotted prefix: "156" → "156.0.1").
const allowedVersions = z.union([z.literal('*'), z.array(z.string()).min(1)], {
  error: 'must be "*" or a list of versions',
});

const user = z
  .strictObject({
    maxSessions: z
      .number()
      .int()
      .positive()
      .optional()
      .meta({ description: 'Sessions this user may hold at once; none set means no per-user limit.' }),
    browsers: z.record(z.string(), allowedVersions).optional().meta({
      description:
        'Browsers this user may use, by configured name, each "*" (every version) or a list of versions; none set means every browser.',
    }),
    pools: z
      .array(name)
      .optional()
      .meta({ description: 'Pools this user may use; none set means every pool.' }),
  })
  .meta({ description: 'What a user may use and hold. The "*" entry applies to users without one.' });

/** Names no environment colour may take by default: they mean shared stages, not feature environments. */
export const DEFAULT_RESERVED_COLORS = ['test', 'regression', 'online', 'dev', 'release', 'pressure'];

const baseDomain = z
  .string()
  .regex(
    /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/,
    'must be a lower-case domain name such as "grid.example.com"',
  );

const colors = z
  .strictObject({
    header: headerName.default('X-Grid-Color').meta({
      description: 'Request header a new-session request may carry its colour in (and the browser sends).',
    }),
    baseDomains: z.array(baseDomain).default([]).meta({
      description:
        'Wildcard base domains: a request to "green.grid.example.com" under "grid.example.com" has colour "green".',
    }),
    reserved: z.array(z.string()).default(DEFAULT_RESERVED_COLORS).meta({
      description: 'Names that are not colours (shared stages); a request or pool using one is refused.',
    }),
    isolation: z.enum(['strict', 'loose']).default('strict').meta({
      description:
        'strict: an uncoloured request goes only to uncoloured pools; loose: to any pool of its browser.',
    }),
  })
  .meta({ description: "Environment colouring: where a request's colour comes from and how it routes." });

/** The users key that holds the rule for every user without an entry of their own. */
export const ANY_USER = '*';
const userName = z
  .string()
  .regex(/^(\*|[A-Za-z0-9][A-Za-z0-9._-]{0,39})$/, 'must be "*" or 1–40 letters, digits, ".", "_" or "-"');

export const configSchema = z
  .strictObject({
    $schema: z.string().optional(),
    port: z.number().int().min(0).max(65535).default(4444),
    host: z.string().default('0.0.0.0').meta({ description: 'Address the Node server listens on.' }),
    publicUrl: z.url().optional().meta({
      description: 'Base URL clients use, when a proxy in front hides it (else taken from each request).',
    }),
    allowedOrigins: z
      .array(
        z
          .url()
          .refine((url) => new URL(url).origin === url, 'must be an origin such as "https://ci.example.com"'),
      )
      .default([])
      .meta({
        description:
          "Other sites whose web pages may use the grid (an Origin header's value); the grid's own pages and WebDriver clients need none.",
      }),
    defaultBrowser: z
      .string()
      .optional()
      .meta({ description: 'Used when a client asks for no browserName.' }),
    browsers: z.record(z.string(), browser).optional(),
    pools: z.record(name, pool).optional(),
    guest: z.string().nullable().default('guest').meta({
      description: 'User that anonymous requests act as; null turns guest access off.',
    }),
    usersFile: z.string().min(1).optional().meta({
      description:
        'Apache htpasswd file (bcrypt, apr1/MD5 or {SHA} hashes) of users who sign in with HTTP Basic auth; relative to this config file; re-read when it changes.',
    }),
    users: z.record(userName, user).default({}),
    admins: z
      .array(userName)
      .default([])
      .meta({ description: "Users who see every user's sessions on the status page and may end them." }),
    store: z
      .discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('memory') }).meta({
          description: "In this process's memory: quotas hold per process.",
        }),
        z
          .strictObject({
            kind: z.literal('dynamodb'),
            table: z.string().min(3).meta({ description: 'The DynamoDB table (the CDK app creates it).' }),
          })
          .meta({ description: 'A DynamoDB table shared by every router: quotas hold across them.' }),
      ])
      .prefault({ kind: 'memory' })
      .meta({ description: 'Where quota slots and session records live.' }),
    colors: colors.prefault({}),
    timeouts: z
      .strictObject({
        newSession: duration.prefault('60s').meta({ description: 'Longest a new session may take.' }),
        idle: duration.prefault('5m').meta({ description: 'A session without commands ends.' }),
        maxAge: duration.prefault('1h').meta({ description: 'No session lives longer.' }),
        queue: duration.prefault('60s').meta({
          description: 'Longest a new-session request waits for a free slot; "0s" refuses at once.',
        }),
      })
      .prefault({}),
    prices: prices.optional().meta({
      description:
        "The list prices cloud sessions' estimated costs use (functions/core/prices.ts): the Region's listed ones (us-east-1 is listed), with any figure given here used instead.",
    }),
    recording: recording.prefault({}),
    limits: z
      .strictObject({
        maxBodySize: byteSize.prefault('64MB').meta({ description: 'Largest request body.' }),
        maxUploadSize: byteSize.prefault('256MB').meta({
          description:
            'Largest file an upload (POST /session/{id}/se/file) may unpack to on a local pool; counted while inflating.',
        }),
      })
      .prefault({}),
  })
  // Runs even when other keys failed, so one run reports every problem.
  .superRefine(checkReferences, { when: () => true });

type ParsedConfig = z.output<typeof configSchema>;
export type PoolConfig = z.output<typeof pool> & { name: string };
export type EcsPoolConfig = Extract<PoolConfig, { kind: 'ecs' }>;
export type EksPoolConfig = Extract<PoolConfig, { kind: 'eks' }>;
export type StoreConfig = ParsedConfig['store'];
export type BrowserConfig = z.output<typeof browser>;
export type UserConfig = z.output<typeof user>;
export type ColorsConfig = z.output<typeof colors>;
export type RecordingConfig = z.output<typeof recording>;
export type Config = Omit<ParsedConfig, 'pools' | 'browsers'> & {
  browsers: Record<string, BrowserConfig>;
  pools: Record<string, PoolConfig>;
};

function checkReferences(config: unknown, ctx: z.RefinementCtx): void {
  const input = config as Partial<ParsedConfig>;
  if ((input.browsers === undefined) !== (input.pools === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: [input.browsers ? 'pools' : 'browsers'],
      message: 'browsers and pools go together',
    });
  }
  for (const [browserName, entry] of Object.entries(input.browsers ?? {})) {
    if (typeof entry?.versions !== 'object' || entry.versions === null) continue;
    if (Object.keys(entry.versions).length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['browsers', browserName, 'versions'],
        message: 'needs at least one version',
      });
    }
    if (entry.defaultVersion !== undefined && !(entry.defaultVersion in entry.versions)) {
      ctx.addIssue({
        code: 'custom',
        path: ['browsers', browserName, 'defaultVersion'],
        message: `"${entry.defaultVersion}" is not one of the versions`,
      });
    }
    for (const [version, offered] of Object.entries(entry.versions)) {
      // Runs on unparsed input too (see `when` below): a version may be null, which zod reports itself.
      const pools = (offered as { pools?: unknown } | null)?.pools;
      if (!Array.isArray(pools)) continue;
      pools.forEach((poolName, index) => {
        if (!input.pools?.[poolName]) {
          ctx.addIssue({
            code: 'custom',
            path: ['browsers', browserName, 'versions', version, 'pools', index],
            message: `no pool named "${poolName}"`,
          });
        }
      });
    }
  }
  if (input.defaultBrowser !== undefined && input.browsers && !(input.defaultBrowser in input.browsers)) {
    ctx.addIssue({
      code: 'custom',
      path: ['defaultBrowser'],
      message: `no browser named "${input.defaultBrowser}"`,
    });
  }
  checkUserReferences(input, ctx);
  checkReservedColors(input, ctx);
  for (const [poolName, entry] of Object.entries(objectOrEmpty(input.pools))) {
    const ecs = objectOrEmpty(entry);
    if (ecs.kind === 'ecs' && ecs.architecture === 'arm64' && ecs.spot !== false) {
      ctx.addIssue({
        code: 'custom',
        path: ['pools', poolName, 'spot'],
        message: 'Fargate Spot runs x86_64 only: set "spot": false for an arm64 pool',
      });
    }
  }
}

// What users' rules may name: the configured catalog, or the built-in one (chrome in pool "local").
function checkUserReferences(input: Partial<ParsedConfig>, ctx: z.RefinementCtx): void {
  const browsers = keysOf(input.browsers ?? { chrome: null });
  const pools = keysOf(input.pools ?? { local: null });
  for (const [userName, rule] of Object.entries(objectOrEmpty(input.users))) {
    for (const [browserName, versions] of Object.entries(objectOrEmpty(objectOrEmpty(rule).browsers))) {
      const path = ['users', userName, 'browsers', browserName];
      if (!browsers.includes(browserName)) {
        ctx.addIssue({ code: 'custom', path, message: `no browser named "${browserName}"` });
        continue;
      }
      // The built-in catalog's version is only known at start-up, so only configured ones are checked.
      if (!input.browsers || !Array.isArray(versions)) continue;
      const offered = keysOf(objectOrEmpty(input.browsers[browserName]).versions);
      versions.forEach((version: unknown, index) => {
        if (
          typeof version === 'string' &&
          !offered.some((o) => o === version || o.startsWith(`${version}.`))
        ) {
          ctx.addIssue({
            code: 'custom',
            path: [...path, index],
            message: `${browserName} has no version "${version}"`,
          });
        }
      });
    }
    const rulePools: unknown = objectOrEmpty(rule).pools;
    (Array.isArray(rulePools) ? rulePools : []).forEach((poolName: unknown, index) => {
      if (typeof poolName === 'string' && !pools.includes(poolName)) {
        ctx.addIssue({
          code: 'custom',
          path: ['users', userName, 'pools', index],
          message: `no pool named "${poolName}"`,
        });
      }
    });
  }
}

// A pool coloured with a reserved name could never be asked for: requests with that colour are refused.
function checkReservedColors(input: Partial<ParsedConfig>, ctx: z.RefinementCtx): void {
  const configured: unknown = objectOrEmpty(input.colors).reserved;
  const reserved = Array.isArray(configured) ? configured : DEFAULT_RESERVED_COLORS;
  for (const [poolName, entry] of Object.entries(objectOrEmpty(input.pools))) {
    const poolColor = objectOrEmpty(entry).color;
    if (typeof poolColor === 'string' && reserved.includes(poolColor)) {
      ctx.addIssue({
        code: 'custom',
        path: ['pools', poolName, 'color'],
        message: `"${poolColor}" is a reserved name (colors.reserved), not a colour`,
      });
    }
  }
}

// checkReferences sees the input even where it failed to parse, so it trusts no shape.
function objectOrEmpty(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
function keysOf(value: unknown): string[] {
  return Object.keys(objectOrEmpty(value));
}

export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`${source} is not a valid gridgate config:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export interface ConfigDefaults {
  /** The version of the local Chromium, which names the built-in catalog's one version. */
  localBrowserVersion: string;
}

/**
 * Validates a config object (already parsed from JSON). With no browsers and pools, the built-in
 * catalog serves: one local Chromium pool, answering to "chrome" and "chromium".
 */
export function parseConfig(input: unknown, defaults: ConfigDefaults, source = 'config'): Config {
  const result = configSchema.safeParse(input ?? {});
  if (!result.success) {
    throw new ConfigError(
      source,
      result.error.issues.map(
        (issue) => `${issue.path.length ? issue.path.join('.') : '(top level)'}: ${issue.message}`,
      ),
    );
  }
  const parsed = result.data;
  const pools = parsed.pools ?? { local: localPool.parse({ kind: 'local' }) };
  const browsers = parsed.browsers ?? {
    chrome: browser.parse({
      aliases: ['chromium'],
      defaultVersion: defaults.localBrowserVersion,
      versions: { [defaults.localBrowserVersion]: { pools: ['local'] } },
    }),
  };
  return {
    ...parsed,
    defaultBrowser: parsed.defaultBrowser ?? (parsed.browsers ? undefined : 'chrome'),
    browsers,
    pools: Object.fromEntries(
      Object.entries(pools).map(([poolName, p]) => [poolName, { ...p, name: poolName }]),
    ),
  };
}

/** The JSON Schema users' editors validate config files with (written to config.schema.json). */
export function configJsonSchema(): object {
  return z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' });
}
