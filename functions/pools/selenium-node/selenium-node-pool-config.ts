/**
 * What gridgate knows from their config alone of the pools whose browsers are Selenium nodes in a Fargate task
 * or a pod (ecs, eks): inside the pool's networks, reached directly, started cold, their noVNC beside them.
 * Pure, like the kinds' config modules built on it.
 */
import { inNetworks } from '../../core/address-rules';
import { directEndpoint } from '../../core/pool-config-traits';

/** What an ecs or eks pool's config says of its nodes: the networks they lie in and their ports. */
interface SeleniumNodePool {
  networks?: string[];
  port: number;
  vncPort: number | false;
  vncPassword: string;
}

export const seleniumNodeConfigTraits = {
  addressAllowed: (pool: SeleniumNodePool, address: string) =>
    inNetworks(pool.networks ?? [], pool.port, address),
  upstreamEndpoint: directEndpoint,
  startsCold: true,
  vncBesideBrowser: (pool: SeleniumNodePool) =>
    pool.vncPort ? { port: pool.vncPort, password: pool.vncPassword } : undefined,
};
