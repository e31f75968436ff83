/**
 * The pod API of eks pools with `auth: "kubeconfig"` (the Node server only): the server, CA and credentials
 * of a kubeconfig context, resolved by @kubernetes/client-node's own loader — tokens, client certificates,
 * basic auth, exec plugins such as `aws eks get-token` (re-run as their credential expires), OIDC, and the
 * in-cluster service account. Loaded only when such a pool starts its first pod, so neither the router
 * Lambda's bundle nor a server without such pools carries the client.
 */
import { createHash } from 'node:crypto';
import type { RequestOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { Agent } from 'undici';
import type { EksPoolConfig } from '../../core/config';
import { EksLaunchFailure } from './eks-launch-stage';
import { type ApiConnection, type EksPodApi, KubernetesPodApi } from './eks-pod-api';

/** A kubeconfig file and one of its contexts, loaded. */
export interface KubeconfigTarget {
  /** The API server's URL, from the context's cluster. */
  server: string;
  config: KubeConfig;
}

/**
 * Loads the pool's kubeconfig (its `kubeconfig` file; else $KUBECONFIG, ~/.kube/config or the in-cluster
 * service account, as kubectl looks) and selects its `context` (else the file's current-context).
 */
export function loadKubeconfig(
  pool: Pick<EksPoolConfig, 'name' | 'kubeconfig' | 'context'>,
): KubeconfigTarget {
  const config = new KubeConfig();
  const where = pool.kubeconfig ?? 'the default kubeconfig';
  try {
    if (pool.kubeconfig) config.loadFromFile(pool.kubeconfig);
    else config.loadFromDefault();
  } catch (error) {
    throw new EksLaunchFailure(
      'config',
      `pools.${pool.name}: reading ${where} failed: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  if (pool.context !== undefined) {
    if (!config.getContextObject(pool.context)) {
      throw new EksLaunchFailure(
        'config',
        `pools.${pool.name}.context: ${where} has no context "${pool.context}"`,
      );
    }
    config.setCurrentContext(pool.context);
  }
  const cluster = config.getCurrentCluster();
  if (!cluster?.server) {
    throw new EksLaunchFailure(
      'config',
      `pools.${pool.name}: ${where} has no cluster with a server for context "${config.getCurrentContext()}"`,
    );
  }
  return { server: cluster.server, config };
}

/** Each call's headers and TLS connection; one undici Agent per distinct TLS material, reused. */
export function kubeconfigConnection(config: KubeConfig): () => Promise<ApiConnection> {
  let current: { id: string; agent: Agent } | undefined;
  return async () => {
    // The library applies the user's credentials to Node https options; an exec plugin runs here when its
    // cached credential has expired.
    const options: RequestOptions = {};
    await config.applyToHTTPSOptions(options);
    const tls = {
      ca: options.ca as string | Buffer | undefined,
      cert: options.cert as string | Buffer | undefined,
      key: options.key as string | Buffer | undefined,
      servername: options.servername,
      rejectUnauthorized: options.rejectUnauthorized,
    };
    const id = createHash('sha256')
      .update(JSON.stringify([tls.ca, tls.cert, tls.key].map((part) => part?.toString())))
      .update(`${tls.servername} ${tls.rejectUnauthorized}`)
      .digest('hex');
    if (current?.id !== id) {
      // A renewed client certificate: new connections with it; the old agent ends once its calls finish.
      current?.agent.close().catch(() => undefined); // already closed: nothing left to end
      current = { id, agent: new Agent({ connect: definedOnly(tls) }) };
    }
    return { headers: headersOf(options), dispatcher: current.agent };
  };
}

/** The pod API of each kubeconfig pool, made once per file and context and reused. */
export function kubeconfigPodApis(): (pool: EksPoolConfig) => EksPodApi {
  const apis = new Map<string, EksPodApi>();
  return (pool) => {
    const id = `${pool.kubeconfig ?? ''}\n${pool.context ?? ''}`;
    let api = apis.get(id);
    if (!api) {
      const { server, config } = loadKubeconfig(pool);
      api = new KubernetesPodApi({ endpoint: server, connection: kubeconfigConnection(config) });
      apis.set(id, api);
    }
    return api;
  };
}

function headersOf(options: RequestOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value !== undefined)
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  // Basic auth comes back as `auth` ("user:password"), as node:https takes it.
  if (options.auth) headers.authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
  return headers;
}

function definedOnly<T extends object>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;
}
