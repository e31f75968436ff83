/**
 * An in-process stand-in for the Kubernetes API server: node:http (or https) on 127.0.0.1 answering exactly
 * the pod calls gridgate makes (create, read, delete, list by label selector, read a container's log) with
 * Kubernetes' paths, Status error bodies and bearer-token (or client-certificate) check; a Pod it would find
 * invalid is refused with 422 Invalid, one it could not decode with 400 BadRequest, a log asked for as the
 * API server would not give it likewise (kubernetes-api-rules.ts). A container's log is what its chromedriver
 * printed (with `containers`) and whatever a test writes into it (writeLog). A pod moves one
 * step through its phases on each read, along the path its behaviour names: normal (Pending → scheduled, ContainerCreating → Running
 * with an IP and Ready), stuck Pending as Unschedulable, an image that never pulls, or Running but never
 * Ready.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import {
  type EksPodApi,
  type EksPodApiOptions,
  KubernetesPodApi,
} from '../../functions/pools/eks/eks-pod-api';
import { podLogRefusal, podProblems, podTypeProblems } from './kubernetes-api-rules';
import type { LoopbackChromedrivers } from './loopback-chromedrivers';

// biome-ignore lint/suspicious/noExplicitAny: Kubernetes objects are free-form JSON, checked field by field.
type Json = any;

/** A pod of a pool with a recorder as a test creates it by hand: the browser and the recorder beside it. */
export function browserAndRecorderPod(name: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      containers: [
        { name: 'browser', image: 'selenium/standalone-chrome:4' },
        { name: 'video', image: 'selenium/video:ffmpeg-7.1' },
      ],
    },
  };
}

export type PodBehaviour = 'normal' | 'unschedulable' | 'image pull' | 'never ready';

export interface FakePod {
  pod: Json;
  behaviour: PodBehaviour;
  reads: number;
  ip: string;
  /** What each container has written, by container name. */
  logs: Map<string, string>;
}

export interface FakeKubernetesOptions {
  /** The bearer token the server accepts; any other gets 401. */
  token: string;
  /** The IP a running pod gets (default 10.1.0.<n>). */
  podIp?: (n: number) => string;
  /**
   * Runs each normal pod's browser as a real chromedriver on the pod's IP: the pod turns Running and
   * Ready only once it listens, and is gone (its processes ended) before DELETE answers.
   */
  containers?: LoopbackChromedrivers;
  /**
   * Serve https with this certificate, as an API server does, and also accept callers whose client
   * certificate `clientCa` signed (Kubernetes' x509 authentication), bearer token or not.
   */
  tls?: { cert: string; key: string; clientCa: string };
}

const PODS = /^\/api\/v1\/namespaces\/([a-z0-9-]+)\/pods(?:\/([a-z0-9.-]+)(\/log)?)?$/;
const UNSCHEDULABLE =
  '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';

export class FakeKubernetesApi {
  /** Every call, in order. */
  readonly calls: { method: string; path: string; body?: Json }[] = [];
  /** Pods by "namespace/name". */
  readonly pods = new Map<string, FakePod>();
  /** The behaviour of the next pods created, one each (then "normal"). */
  readonly behaviours: PodBehaviour[] = [];
  /** Answers the next calls with 429 Too Many Requests, as API priority and fairness does. */
  throttleNext = 0;
  /** Answers the next create with this status and Status reason. */
  failNextCreate?: { status: number; reason: string; message: string };
  private created = 0;
  private readonly server: Server;

  private constructor(private readonly options: FakeKubernetesOptions) {
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      this.handle(req, res).catch(() => res.destroy());
    };
    const tls = options.tls;
    this.server = tls
      ? createTlsServer(
          // Ask for a client certificate but let token callers in without one; handle() decides.
          { cert: tls.cert, key: tls.key, ca: tls.clientCa, requestCert: true, rejectUnauthorized: false },
          handler,
        )
      : createServer(handler);
  }

  static async start(options: FakeKubernetesOptions): Promise<FakeKubernetesApi> {
    const api = new FakeKubernetesApi(options);
    await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  get endpoint(): string {
    const scheme = this.options.tls ? 'https' : 'http';
    return `${scheme}://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** gridgate's pod API client of this server, with the bearer token it accepts (over plain http). */
  podApi(options: Partial<EksPodApiOptions> = {}): EksPodApi {
    return new KubernetesPodApi({
      endpoint: this.endpoint,
      token: async () => this.options.token,
      ...options,
    });
  }

  /** Appends to what a pod's container has written (its log), as its process would print it. */
  writeLog(namespace: string, name: string, container: string, text: string): void {
    const fake = this.pods.get(`${namespace}/${name}`);
    if (!fake) throw new Error(`no pod ${namespace}/${name}`);
    fake.logs.set(container, (fake.logs.get(container) ?? '') + text);
  }

  callsOf(method: string): { path: string; body?: Json }[] {
    return this.calls.filter((call) => call.method === method).map(({ method: _, ...call }) => call);
  }

  async close(): Promise<void> {
    await this.options.containers?.stopAll();
    const closed = new Promise((resolve) => this.server.close(resolve));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? JSON.parse(text) : undefined;
    const method = req.method ?? 'GET';
    this.calls.push({ method, path: `${url.pathname}${url.search}`, ...(body ? { body } : {}) });
    const reply = (code: number, answer: Json): void => {
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    };
    const certified = this.options.tls !== undefined && (req.socket as TLSSocket).authorized;
    if (!certified && req.headers.authorization !== `Bearer ${this.options.token}`) {
      return reply(401, status(401, 'Unauthorized', 'Unauthorized'));
    }
    if (this.throttleNext > 0) {
      this.throttleNext--;
      return reply(429, status(429, 'TooManyRequests', 'Too many requests, please try again later.'));
    }
    const match = PODS.exec(url.pathname);
    if (!match) return reply(404, status(404, 'NotFound', `the server could not find ${url.pathname}`));
    const [, namespace, name, log] = match as unknown as [string, string, string | undefined, string?];
    if (method === 'POST' && name === undefined) return reply(...this.create(namespace, body));
    if (method === 'GET' && name === undefined) return reply(200, this.list(namespace, url.searchParams));
    if (name === undefined) return reply(405, status(405, 'MethodNotAllowed', `${method} on a collection`));
    const fake = this.pods.get(`${namespace}/${name}`);
    if (!fake) return reply(404, status(404, 'NotFound', `pods "${name}" not found`));
    if (log) {
      if (method !== 'GET') return reply(405, status(405, 'MethodNotAllowed', `${method} on a pod's log`));
      const refusal = podLogRefusal(fake.pod, url.searchParams);
      if (refusal) return reply(refusal.code, status(refusal.code, refusal.reason, refusal.message));
      res.writeHead(200, { 'content-type': 'text/plain' }).end(this.logText(fake, url.searchParams));
      return;
    }
    if (method === 'GET') return reply(200, this.read(fake));
    if (method === 'DELETE') {
      this.pods.delete(`${namespace}/${name}`);
      await this.options.containers?.stop(name);
      return reply(200, fake.pod);
    }
    return reply(405, status(405, 'MethodNotAllowed', `${method} on a pod`));
  }

  private create(namespace: string, body: Json): [number, Json] {
    if (this.failNextCreate) {
      const { status: code, reason, message } = this.failNextCreate;
      this.failNextCreate = undefined;
      return [code, status(code, reason, message)];
    }
    if (
      body?.kind !== 'Pod' ||
      body.apiVersion !== 'v1' ||
      !body.metadata?.name ||
      !body.spec?.containers?.length
    ) {
      return [400, status(400, 'BadRequest', 'not a v1 Pod with a name and containers')];
    }
    if (body.metadata.namespace !== undefined && body.metadata.namespace !== namespace) {
      return [400, status(400, 'BadRequest', 'the namespace of the provided object does not match')];
    }
    const undecodable = podTypeProblems(body);
    if (undecodable.length > 0) {
      return [
        400,
        status(
          400,
          'BadRequest',
          `Pod in version "v1" cannot be handled as a Pod: ${undecodable.join(', ')}`,
        ),
      ];
    }
    const problems = podProblems(body);
    if (problems.length > 0) {
      return [422, status(422, 'Invalid', `Pod "${body.metadata.name}" is invalid: ${problems.join(', ')}`)];
    }
    const key = `${namespace}/${body.metadata.name}`;
    if (this.pods.has(key)) {
      return [409, status(409, 'AlreadyExists', `pods "${body.metadata.name}" already exists`)];
    }
    const pod = {
      ...body,
      metadata: {
        ...body.metadata,
        namespace,
        uid: randomUUID(),
        creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      },
      status: { phase: 'Pending', qosClass: 'Guaranteed' },
    };
    this.created++;
    const behaviour = this.behaviours.shift() ?? 'normal';
    const fake: FakePod = {
      pod,
      behaviour,
      reads: 0,
      ip: this.options.podIp?.(this.created) ?? `10.1.0.${this.created}`,
      logs: new Map(),
    };
    this.pods.set(key, fake);
    // The first container is the browser: what its chromedriver prints is its log; it starts with its env.
    const browser = body.spec.containers[0];
    if (behaviour === 'normal')
      this.options.containers?.start(
        body.metadata.name,
        fake.ip,
        { onLine: (line) => fake.logs.set(browser.name, `${fake.logs.get(browser.name) ?? ''}${line}\n`) },
        Object.fromEntries((browser.env ?? []).map((variable: Json) => [variable.name, variable.value])),
      );
    return [201, pod];
  }

  /** One step along the pod's path per read. */
  private read(fake: FakePod): Json {
    fake.reads++;
    const step = fake.reads;
    const ip = fake.ip;
    const container = fake.pod.spec.containers[0];
    const scheduled = { type: 'PodScheduled', status: 'True' };
    const waiting = (reason: string, message?: string) => [
      { name: container.name, image: container.image, ready: false, state: { waiting: { reason, message } } },
    ];
    switch (fake.behaviour) {
      case 'unschedulable':
        fake.pod.status = {
          phase: 'Pending',
          conditions: [
            { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: UNSCHEDULABLE },
          ],
        };
        break;
      case 'image pull':
        fake.pod.status =
          step === 1
            ? { phase: 'Pending', conditions: [scheduled], containerStatuses: waiting('ContainerCreating') }
            : {
                phase: 'Pending',
                conditions: [scheduled],
                containerStatuses: waiting(
                  step === 2 ? 'ErrImagePull' : 'ImagePullBackOff',
                  `rpc error: code = NotFound desc = failed to pull and unpack image "${container.image}": not found`,
                ),
              };
        break;
      default: {
        const starting =
          this.options.containers && !this.options.containers.listening(fake.pod.metadata.name);
        if (step === 1 || starting) {
          fake.pod.status = {
            phase: 'Pending',
            conditions: [scheduled],
            containerStatuses: waiting('ContainerCreating'),
          };
          break;
        }
        const ready = fake.behaviour === 'normal' ? 'True' : 'False';
        fake.pod.status = {
          phase: 'Running',
          podIP: ip,
          podIPs: [{ ip }],
          conditions: [
            scheduled,
            { type: 'Initialized', status: 'True' },
            { type: 'ContainersReady', status: ready },
            { type: 'Ready', status: ready, ...(ready === 'False' ? { reason: 'ContainersNotReady' } : {}) },
          ],
          containerStatuses: [
            {
              name: container.name,
              image: container.image,
              ready: ready === 'True',
              started: true,
              state: { running: { startedAt: new Date().toISOString() } },
            },
          ],
        };
      }
    }
    return fake.pod;
  }

  /**
   * The container's log as the kubelet gives it: the last `tailLines` lines if asked, then at most `limitBytes`
   * bytes ("the number of bytes to read from the server before terminating the log output").
   */
  private logText(fake: FakePod, query: URLSearchParams): Buffer {
    const container = query.get('container') || fake.pod.spec.containers[0].name;
    let text = fake.logs.get(container) ?? '';
    const tail = query.get('tailLines');
    if (tail !== null) {
      const lines = text.split(/(?<=\n)/);
      text = Number(tail) === 0 ? '' : lines.slice(-Number(tail)).join('');
    }
    const bytes = Buffer.from(text, 'utf8');
    const limit = query.get('limitBytes');
    return limit === null ? bytes : bytes.subarray(0, Number(limit));
  }

  /** Equality selectors ("a=b,c=d") with limit/continue paging, as the API server pages. */
  private list(namespace: string, query: URLSearchParams): Json {
    const wanted = (query.get('labelSelector') ?? '')
      .split(',')
      .filter(Boolean)
      .map((term) => term.split('=') as [string, string]);
    const matching = [...this.pods.values()]
      .map((fake) => fake.pod)
      .filter((pod) => pod.metadata.namespace === namespace)
      .filter((pod) => wanted.every(([key, value]) => pod.metadata.labels?.[key] === value));
    const from = Number(query.get('continue') ?? 0);
    const limit = Number(query.get('limit') ?? matching.length) || matching.length;
    const page = matching.slice(from, from + limit);
    const next = from + limit < matching.length ? String(from + limit) : undefined;
    return { kind: 'PodList', apiVersion: 'v1', metadata: next ? { continue: next } : {}, items: page };
  }
}

function status(code: number, reason: string, message: string): Json {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}
