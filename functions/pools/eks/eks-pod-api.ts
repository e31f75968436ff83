/**
 * The few Kubernetes API calls gridgate makes on pods (create, read, delete, list by label, read a container's
 * log): the EksPodApi interface the EKS launcher, fleet and log source depend on, and KubernetesPodApi, which
 * makes them over undici with a bearer token and the cluster's CA. A full client (@kubernetes/client-node)
 * would bring its own HTTP stack, YAML, OpenID and WebSocket dependencies into every Lambda bundle for these
 * five requests.
 */
import { Agent, type Dispatcher, request } from 'undici';
import { abortAfter } from '../../core/abort-after';
import type { Pod } from './eks-pod-spec';
import type { TokenProvider } from './eks-token';

export interface EksPodApiOptions {
  /** The API server's base URL, e.g. "https://ABC.gr7.eu-west-1.eks.amazonaws.com". */
  endpoint: string;
  /** The bearer token of every call (an EKS token). */
  token?: TokenProvider;
  /**
   * Instead of `token`, `ca` and `agent`: the headers and the connection of each call, from a kubeconfig
   * whose credentials (an exec plugin's token or client certificate) may change from one call to the next.
   */
  connection?: () => Promise<ApiConnection>;
  /** PEM certificates the API server's certificate must chain to (the cluster's own CA). */
  ca?: string;
  /** Overrides the agent made from `ca` (a kubeconfig's TLS settings; tests on plain http). */
  agent?: Dispatcher;
  /** Longest one API call may take (default 10 s). */
  requestTimeoutMs?: number;
  /** Pods per list page (default 500). */
  listPage?: number;
}

/** How one call authenticates: its headers (bearer token, basic auth, impersonation) and TLS connection. */
export interface ApiConnection {
  headers: Record<string, string>;
  dispatcher: Dispatcher;
}

/** A non-2xx answer: its HTTP status and the Status object's reason ("NotFound", "AlreadyExists", …). */
export class KubernetesApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(`Kubernetes API ${status} ${reason}: ${message}`);
    this.name = 'KubernetesApiError';
  }

  /** Worth another try later: throttled (429, API priority and fairness) or the server's own trouble. */
  get transient(): boolean {
    return this.status === 429 || this.status >= 500;
  }
}

// Each list page; the cleanup follows `continue` tokens so any number of pods is seen.
const LIST_PAGE = 500;

/** Pods in a cluster's namespaces, as the EKS launcher and the EKS fleet use them. */
export interface EksPodApi {
  create(namespace: string, pod: Pod, signal?: AbortSignal): Promise<Pod>;
  /** The pod, or undefined when there is none by that name. */
  read(namespace: string, name: string, signal?: AbortSignal): Promise<Pod | undefined>;
  /** Deletes the pod (with its own grace period); false when it was already gone. */
  delete(namespace: string, name: string, signal?: AbortSignal): Promise<boolean>;
  /** Every pod in the namespace matching the label selector, page by page. */
  list(namespace: string, labelSelector: string, signal?: AbortSignal): Promise<Pod[]>;
  /**
   * The container's log from its start, at most `limitBytes` of it; undefined when there is no such pod.
   * Not followed: what was written when asked.
   */
  log(
    namespace: string,
    name: string,
    options: PodLogOptions,
    signal?: AbortSignal,
  ): Promise<Buffer | undefined>;
}

/** Which container's log, and how much of it (Kubernetes API reference, Pod, "read log of the specified Pod"). */
export interface PodLogOptions {
  /** Required by the API server whenever the pod has more than one container (a recorder beside the browser). */
  container: string;
  /** At least 1; the server may answer "slightly more or slightly less", so the answer is cut here too. */
  limitBytes: number;
}

/** EksPodApi over the Kubernetes REST API; refusals are KubernetesApiError. */
export class KubernetesPodApi implements EksPodApi {
  private readonly dispatcher: Dispatcher;
  private readonly base: string;

  constructor(private readonly options: EksPodApiOptions) {
    this.base = options.endpoint.replace(/\/+$/, '');
    this.dispatcher = options.agent ?? new Agent({ connect: options.ca ? { ca: options.ca } : {} });
  }

  async create(namespace: string, pod: Pod, signal?: AbortSignal): Promise<Pod> {
    return this.call('POST', podsPath(namespace), signal, pod);
  }

  /** The pod, or undefined when there is none by that name. */
  async read(namespace: string, name: string, signal?: AbortSignal): Promise<Pod | undefined> {
    try {
      return await this.call('GET', `${podsPath(namespace)}/${encodeURIComponent(name)}`, signal);
    } catch (error) {
      if (error instanceof KubernetesApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** Deletes the pod (with its own grace period); false when it was already gone. */
  async delete(namespace: string, name: string, signal?: AbortSignal): Promise<boolean> {
    try {
      await this.call('DELETE', `${podsPath(namespace)}/${encodeURIComponent(name)}`, signal);
      return true;
    } catch (error) {
      if (error instanceof KubernetesApiError && error.status === 404) return false;
      throw error;
    }
  }

  /** Every pod in the namespace matching the label selector, page by page. */
  async list(namespace: string, labelSelector: string, signal?: AbortSignal): Promise<Pod[]> {
    const pods: Pod[] = [];
    let token: string | undefined;
    do {
      const query = new URLSearchParams({ labelSelector, limit: String(this.options.listPage ?? LIST_PAGE) });
      if (token) query.set('continue', token);
      const page = await this.call('GET', `${podsPath(namespace)}?${query}`, signal);
      pods.push(...(page.items ?? []));
      token = page.metadata?.continue || undefined;
    } while (token);
    return pods;
  }

  /** `GET …/pods/{name}/log?container=…&limitBytes=…` (no `follow`): text/plain, a Status object on errors. */
  async log(
    namespace: string,
    name: string,
    { container, limitBytes }: PodLogOptions,
    signal?: AbortSignal,
  ): Promise<Buffer | undefined> {
    const query = new URLSearchParams({ container, limitBytes: String(limitBytes) });
    const path = `${podsPath(namespace)}/${encodeURIComponent(name)}/log?${query}`;
    try {
      return await this.call('GET', path, signal, undefined, limitBytes);
    } catch (error) {
      if (error instanceof KubernetesApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  private async connection(): Promise<ApiConnection> {
    if (this.options.connection) return this.options.connection();
    const headers: Record<string, string> = this.options.token
      ? { authorization: `Bearer ${await this.options.token()}` }
      : {};
    return { headers, dispatcher: this.dispatcher };
  }

  private call(
    method: Dispatcher.HttpMethod,
    path: string,
    signal?: AbortSignal,
    body?: unknown,
  ): Promise<Pod>;
  private call(
    method: Dispatcher.HttpMethod,
    path: string,
    signal: AbortSignal | undefined,
    body: undefined,
    textUpTo: number,
  ): Promise<Buffer>;
  private async call(
    method: Dispatcher.HttpMethod,
    path: string,
    signal?: AbortSignal,
    body?: unknown,
    textUpTo?: number,
  ) {
    // Held until the answer is read: AbortSignal.any holds a bare AbortSignal.timeout too weakly to fire.
    const timeout = abortAfter(this.options.requestTimeoutMs ?? 10_000);
    try {
      return await this.send(
        method,
        path,
        signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal,
        body,
        textUpTo,
      );
    } finally {
      timeout.clear();
    }
  }

  /** A 2xx answer as JSON, or as its first `textUpTo` bytes when given (a log); any other a KubernetesApiError. */
  private async send(
    method: Dispatcher.HttpMethod,
    path: string,
    signal: AbortSignal,
    body?: unknown,
    textUpTo?: number,
  ) {
    const { headers, dispatcher } = await this.connection();
    const response = await request(`${this.base}${path}`, {
      method,
      dispatcher,
      signal,
      headers: {
        ...headers,
        // A log is text/plain; its errors are still Status objects in JSON.
        accept: textUpTo === undefined ? 'application/json' : 'text/plain, application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    if (ok && textUpTo !== undefined) return firstBytes(response.body, textUpTo);
    const text = await response.body.text();
    let json: Pod;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      json = { message: text.slice(0, 200) };
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return json;
    // Errors come as a Status object: {kind: "Status", reason, message, code}.
    throw new KubernetesApiError(
      response.statusCode,
      json.reason ?? 'Unknown',
      json.message ?? `${method} ${path} failed`,
    );
  }
}

/** The first `most` bytes of a body; the rest is not read (the connection is dropped, not drained). */
async function firstBytes(body: Dispatcher.ResponseData['body'], most: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    const part = chunk as Buffer;
    chunks.push(part.subarray(0, most - bytes));
    bytes += Math.min(part.length, most - bytes);
    if (bytes >= most) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks);
}

function podsPath(namespace: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`;
}
