/** The pools a config may name, by kind: local Chromium, an existing hub, ECS Fargate tasks, EKS pods, containers. */
// A namespace import lets bundlers keep only what is used; `{ z }` keeps all of zod, every locale too.
import * as z from 'zod';
import { containerPool } from './config-container-pool';
import { ecsPool } from './config-ecs-pool';
import { eksPool } from './config-eks-pool';
import { poolCommon } from './config-pool-common';
import { duration } from './config-values';

export const localPool = z
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
        "Browsers kept ready ahead of demand: each a chromedriver plus a Chromium already launched with the pool's default arguments. A new session that asks for no launch-time options (extra args, extensions, prefs, proxy, …) takes one and skips the browser's start; others start cold. Each serves exactly one session and is replaced after the hand-over; every one holds an idle Chromium's memory. 0 keeps no Chromium ahead, only one chromedriver, which a new session that does not ask for its driver log takes.",
    }),
  })
  .meta({ description: 'Chromium started through chromedriver on this machine, one per session.' });

export const hubPool = z
  .strictObject({
    kind: z.literal('hub'),
    ...poolCommon,
    url: z
      .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
      .meta({ description: 'The hub with its base path, e.g. "http://hub:4444/wd/hub".' }),
    username: z.string().optional().meta({ description: 'Basic auth user sent to this hub only.' }),
    password: z.string().optional().meta({ description: 'Basic auth password sent to this hub only.' }),
    timeout: duration.optional().meta({
      description:
        'Longest one new-session attempt at this hub may take before the next hub is tried; default: an equal share of timeouts.newSession per hub (and other pool) the version could try, none when there is nothing else to try.',
    }),
  })
  .meta({ description: 'An existing WebDriver hub (Selenium Grid, Selenoid, ggr) that gridgate routes to.' });

export const pool = z.discriminatedUnion('kind', [localPool, hubPool, ecsPool, eksPool, containerPool]);

/** A pool as parsed, with the name it has in the config's `pools`. */
export type PoolConfig = z.output<typeof pool> & { name: string };
