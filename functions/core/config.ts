/** The gridgate config file: one zod schema, parsed at start-up and on each reload, every problem reported with its path. */
// A namespace import lets bundlers keep only what is used; `{ z }` keeps all of zod, every locale too.
import * as z from 'zod';
import { localPool } from '../pools/local/local-pool-config';
import { type PoolConfig, pool } from './config-pools';
import { checkReferences } from './config-references';
import { configTraitsNamed } from './config-traits-by-kind';
import { byteSize, DEFAULT_RESERVED_COLORS, duration, headerName, name } from './config-values';
import { headsSchema } from './heads-config';

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
    console: z.boolean().default(false).meta({
      description:
        'Capture the browser console of every session as a text log (local pools); else only sessions that ask.',
    }),
    network: z.boolean().default(false).meta({
      description:
        'Capture the network traffic of every session as a HAR file (local pools); else only sessions that ask.',
    }),
    keep: z.enum(['all', 'failed'], { error: 'must be "all" or "failed"' }).default('all').meta({
      description:
        'Which ended sessions keep their video: all, or only failed ones (a failed result, an idle or max-age end, a crashed or reclaimed browser, a shutdown); see docs/video-and-logs.md.',
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

/** The most worker processes a Node server may run; the default stops lower (see defaultWorkers). */
export const MAX_WORKERS = 64;
/** Past this many cores the default stops adding workers: sessions' browsers want cores too. */
export const DEFAULT_WORKERS_CAP = 8;

export const configSchema = z
  .strictObject({
    $schema: z.string().optional(),
    port: z.number().int().min(0).max(65535).default(4444),
    host: z.string().default('127.0.0.1').meta({
      description:
        'Address the Node server listens on. The default, loopback, lets only programs on this machine in (as chromedriver does); "0.0.0.0" listens on every interface (as Selenium Grid does), for a grid other machines use: turn the guest off with a users file before that.',
    }),
    workers: z
      .number()
      .int()
      .min(1)
      .max(MAX_WORKERS)
      .optional()
      .meta({
        description: `Processes that serve HTTP in the Node server (each uses one core), beside one that keeps the sessions; 1 runs everything in one process. Default: the cores this machine offers, at most ${DEFAULT_WORKERS_CAP}.`,
      }),
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
    allowedHosts: z
      .array(
        z
          .string()
          .regex(
            /^\.?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/,
            'must be a lower-case host name such as "grid.example.com", or ".example.com" for it and its subdomains',
          ),
      )
      .default([])
      .meta({
        description:
          'Names web pages may reach the Node server at, besides localhost, IP addresses and publicUrl\'s host ("grid.example.com"; ".example.com": it and every subdomain). The status page, and a browser\'s request (one with an Origin), at another name are refused: its page may be another site\'s whose name was pointed at this grid (DNS rebinding). WebDriver clients need none.',
      }),
    isolation: z.enum(['namespace', 'none']).default('namespace').meta({
      description:
        'How local pools\' browsers are kept from this machine and each other. "namespace": each chromedriver and its Chromium in a network namespace of their own, whose pages reach the internet and this machine\'s loopback services but no chromedriver, no DevTools port and not gridgate (needs root, pasta and nft; see docs/security.md). "none": they share the machine\'s network.',
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
    playwrightCache: z.string().min(1).optional().meta({
      description:
        'Folder where the playwright-core versions Playwright clients ask for are installed from the npm registry on first use (local pools). Default: ~/.cache/gridgate/playwright.',
    }),
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
        newSession: duration.optional().meta({
          description:
            'Longest a new session may take. Default: 60s, or 3m when some pool is ecs or eks, whose browsers start cold (a Fargate task pulls its whole image: 30-60 s and more).',
        }),
        idle: duration.prefault('5m').meta({ description: 'A session without commands ends.' }),
        maxAge: duration.prefault('1h').meta({ description: 'No session lives longer.' }),
        queue: duration.prefault('60s').meta({
          description: 'Longest a new-session request waits for a free slot; "0s" refuses at once.',
        }),
        request: duration
          .refine((ms) => ms >= 1000, 'must be at least "1s"')
          .prefault('60s')
          .meta({
            description:
              "Longest a client may take to send a request's header section, and longest its body may go without a byte (an upload that keeps sending is never cut); then 408 timeout and the connection closes. Node server only.",
          }),
      })
      .prefault({}),
    prices: prices.optional().meta({
      description:
        "The list prices cloud sessions' estimated costs use (functions/core/prices.ts): the Region's listed ones (us-east-1 is listed), with any figure given here used instead.",
    }),
    recording: recording.prefault({}),
    heads: headsSchema.optional(),
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

export { DEFAULT_RESERVED_COLORS };

type ParsedConfig = z.output<typeof configSchema>;

export type { PoolConfig };
export type LocalPoolConfig = Extract<PoolConfig, { kind: 'local' }>;
export type HubPoolConfig = Extract<PoolConfig, { kind: 'hub' }>;
export type EcsPoolConfig = Extract<PoolConfig, { kind: 'ecs' }>;
export type EksPoolConfig = Extract<PoolConfig, { kind: 'eks' }>;
export type ContainerPoolConfig = Extract<PoolConfig, { kind: 'container' }>;
export type StoreConfig = ParsedConfig['store'];
export type BrowserConfig = z.output<typeof browser>;
export type UserConfig = z.output<typeof user>;
export type ColorsConfig = z.output<typeof colors>;
export type RecordingConfig = z.output<typeof recording>;
export type Config = Omit<ParsedConfig, 'pools' | 'browsers' | 'timeouts'> & {
  browsers: Record<string, BrowserConfig>;
  pools: Record<string, PoolConfig>;
  timeouts: ParsedConfig['timeouts'] & { newSession: number };
};

/** `timeouts.newSession` when the config sets none and every pool starts quickly (local, hub, container). */
export const QUICK_NEW_SESSION_MS = 60_000;
/**
 * `timeouts.newSession` when the config sets none and some pool starts browsers cold on AWS (ecs, eks): a
 * Fargate task pulls its whole image every time ("30-45 seconds or longer" for docker-selenium's 1 GB+ images,
 * ~55 s measured; a recorder's pool pulls two), and a first session that times out is the first thing a team
 * meets. Three minutes holds a slow pull with room; warm pools make most starts take seconds.
 */
export const COLD_NEW_SESSION_MS = 180_000;

/** Whether a pool's browsers start cold on AWS (an image pulled per session). */
export function startsCold(pool: Pick<PoolConfig, 'kind'>): boolean {
  return configTraitsNamed(pool.kind)?.startsCold ?? false;
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
  /** The version of the built-in catalog's browser here (PoolKind.builtInCatalog), which names its one version. */
  builtInBrowserVersion: string;
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
      defaultVersion: defaults.builtInBrowserVersion,
      versions: { [defaults.builtInBrowserVersion]: { pools: ['local'] } },
    }),
  };
  const cold = Object.values(pools).some(startsCold);
  return {
    ...parsed,
    timeouts: {
      ...parsed.timeouts,
      newSession: parsed.timeouts.newSession ?? (cold ? COLD_NEW_SESSION_MS : QUICK_NEW_SESSION_MS),
    },
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
