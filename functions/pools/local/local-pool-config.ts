/**
 * The config of local pools: Chromium started through chromedriver on this machine, one per session, and what
 * gridgate knows of them from their config alone. Pure, so the config's `pools` union (core/config-pools.ts)
 * is built from it.
 */
// A namespace import lets bundlers keep only what is used; `{ z }` keeps all of zod, every locale too.
import * as z from 'zod';
import { onLoopback } from '../../core/address-rules';
import { poolCommon } from '../../core/config-pool-common';
import { directEndpoint, poolConfigKind } from '../../core/pool-config-traits';
import { localLaunchRefusal } from './local-launch-options';

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

export const localPoolConfig = poolConfigKind(localPool, {
  addressAllowed: (_pool, address) => onLoopback(address),
  upstreamEndpoint: directEndpoint,
  startsCold: false,
  keepsWarm: (pool) => (pool.warm ?? 0) > 0,
  // Its Chromium, its binary and its switches are this machine's (DESIGN invariant 7).
  launchRefusal: localLaunchRefusal,
  notOnAws: (pool) => [`pools.${pool.name}: local pools cannot run in Lambda (no Chromium there)`],
});
