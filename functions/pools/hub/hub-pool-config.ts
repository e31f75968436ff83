/**
 * The config of hub pools: an existing WebDriver hub (Selenium Grid, Selenoid, ggr) that gridgate routes to, and
 * what gridgate knows of them from their config alone. Pure, so the config's `pools` union
 * (core/config-pools.ts) is built from it.
 */
// A namespace import lets bundlers keep only what is used; `{ z }` keeps all of zod, every locale too.
import * as z from 'zod';
import { poolCommon } from '../../core/config-pool-common';
import { duration } from '../../core/config-values';
import { poolConfigKind } from '../../core/pool-config-traits';
import { hubEndpointOf } from './hub-endpoint';

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

export const hubPoolConfig = poolConfigKind(hubPool, {
  // A hub pool's sessions live on that hub and nowhere else.
  addressAllowed: (pool, address) => address === hubEndpointOf(pool).address,
  upstreamEndpoint: (pool) => hubEndpointOf(pool).endpoint,
  sharedEndpoint: (pool) => hubEndpointOf(pool),
  startsCold: false,
  keepsWarm: () => false,
  attemptTimeoutMs: (pool, share) => pool.timeout ?? share,
});
