/**
 * The config of `container` pools: one container of the pool's image per session, run by podman or Docker on
 * gridgate's machine, each in a network namespace of its own (docs/container-pools.md); and what gridgate knows
 * of container pools from their config alone. Pure, so the config's `pools` union (core/config-pools.ts) is
 * built from it.
 */
// A namespace import lets bundlers keep only what is used; `{ z }` keeps all of zod, every locale too.
import * as z from 'zod';
import { onLoopback } from '../../core/address-rules';
import { containerPorts, poolCommon } from '../../core/config-pool-common';
import { directEndpoint, poolConfigKind } from '../../core/pool-config-traits';

/** A size as podman and Docker take it: a number and an optional unit b, k, m or g ("2g", "512m"). */
const engineSize = z.string().regex(/^\d+[bkmg]?$/i, 'must be a size such as "2g" or "512m"');

export const containerPool = z
  .strictObject({
    kind: z.literal('container'),
    ...poolCommon,
    ...containerPorts,
    image: z.string().min(1).meta({
      description:
        'The browser image: docker-selenium\'s (e.g. "selenium/standalone-chromium:latest", "selenium/standalone-firefox:latest") or any image serving WebDriver on `port`.',
    }),
    engine: z.enum(['podman', 'docker']).optional().meta({
      description:
        'The container engine to run it with; default: podman if this machine has it, else docker.',
    }),
    env: z
      .record(
        z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
        z.string(),
      )
      .default({})
      .meta({
        description:
          "Extra environment for every container (docker-selenium's SE_* knobs, e.g. SE_SCREEN_WIDTH); gridgate's own SE_NODE_MAX_SESSIONS, SE_DRAIN_AFTER_SESSION_COUNT and SE_NODE_SESSION_TIMEOUT win.",
      }),
    cpus: z.number().positive().optional().meta({ description: 'CPUs a container may use (--cpus).' }),
    memory: engineSize.optional().meta({ description: 'Memory a container may use (--memory), e.g. "2g".' }),
    shmSize: engineSize.default('2g').meta({
      description:
        "The container's /dev/shm (--shm-size): Chromium needs more than the engines' 64m default.",
    }),
    hostLoopback: z.boolean().default(false).meta({
      description:
        "Let pages reach this machine's loopback services at 10.0.2.2 (a dev server on localhost:3000 is http://10.0.2.2:3000): podman's slirp4netns allow_host_loopback. Every loopback service then answers pages, gridgate's own port too (whose front door refuses requests from pages); the containers' ports move to 127.0.0.2, out of reach. Off: pages reach the internet only.",
    }),
    warm: z.number().int().nonnegative().optional().meta({
      default: 0,
      description:
        "Containers kept running and ready ahead of demand: a new session takes one and skips the container's start (seconds for docker-selenium's images). Each serves one session and is replaced.",
    }),
  })
  .meta({
    description:
      'One container of an image per session on this machine (podman or Docker), in a network namespace of its own.',
  });

export const containerPoolConfig = poolConfigKind(containerPool, {
  // A container's WebDriver port is published on this machine's loopback (container-run-args.ts).
  addressAllowed: (_pool, address) => onLoopback(address),
  upstreamEndpoint: directEndpoint,
  startsCold: false,
  keepsWarm: (pool) => (pool.warm ?? 0) > 0,
  notOnAws: (pool) => [
    `pools.${pool.name}: container pools cannot run in Lambda (no podman or Docker there)`,
  ],
});
