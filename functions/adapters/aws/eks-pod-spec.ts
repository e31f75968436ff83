/**
 * The pod gridgate starts for one session, and how its pods are marked: the labels the cleanup lists them
 * by and the annotation it reads their age from. The launcher and the cleanup share these: change one,
 * change both.
 */
import { randomBytes } from 'node:crypto';
import type { EksPoolConfig } from '../../core/config';
import type { LaunchRequest } from '../../core/ports';

export const POD_LABELS = {
  /** Present on every pod gridgate starts: "true". The cleanup lists by it. */
  grid: 'gridgate',
  /** gridgate's session key: names the session record and quota slot. */
  session: 'gridgate/session',
  pool: 'gridgate/pool',
  /** The user, made a valid label value (the exact name is in an annotation). */
  user: 'gridgate/user',
} as const;

export const POD_ANNOTATIONS = {
  /** Epoch milliseconds when the launch began, as decimal text. */
  createdAt: 'gridgate/created-at',
  user: 'gridgate/user',
} as const;

/** Selects every pod gridgate started. */
export const GRID_SELECTOR = `${POD_LABELS.grid}=true`;
/** The browser container's name in every pod. */
export const CONTAINER = 'browser';

// Chromium needs more shared memory than a container's default 64 MB or tabs crash.
const SHM_SIZE = '2Gi';

/**
 * A fresh pod name for one launch: "gg-" + the session key + a random suffix, so a retry on another eks
 * pool never meets the previous pod still terminating under the same name. Short, since the session ID
 * carries it (a DNS-1123 label, ≤ 63 characters).
 */
export function podNameFor(key: string, random = () => randomBytes(3).toString('hex')): string {
  const safe = key
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '')
    .slice(0, 32);
  return `gg-${safe}${safe ? '-' : ''}${random()}`;
}

/**
 * Any text as a label value: up to 63 of A–Z a–z 0–9 - _ ., starting and ending alphanumeric (Kubernetes
 * refuses a pod with a bad label, so a user named "ann@example.com" becomes "ann_example.com").
 */
export function labelValue(text: string): string {
  return text
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
}

// biome-ignore lint/suspicious/noExplicitAny: a Kubernetes object is free-form JSON.
export type Pod = any;

/** The Pod object POSTed to /api/v1/namespaces/{namespace}/pods. */
export function podManifest(
  pool: EksPoolConfig,
  request: LaunchRequest,
  name: string,
  createdAt: number,
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: pool.namespace,
      labels: {
        ...pool.labels,
        [POD_LABELS.grid]: 'true',
        [POD_LABELS.session]: labelValue(request.key),
        [POD_LABELS.pool]: labelValue(pool.name),
        [POD_LABELS.user]: labelValue(request.user),
      },
      annotations: {
        [POD_ANNOTATIONS.createdAt]: String(createdAt),
        [POD_ANNOTATIONS.user]: request.user,
        // Karpenter's consolidation, drift and expiry then leave the pod's node alone while the session runs
        // (a Spot interruption still ends it); without Karpenter the annotation means nothing.
        'karpenter.sh/do-not-disrupt': 'true',
      },
    },
    spec: {
      // One session, one run: a browser that exits is not started again.
      restartPolicy: 'Never',
      // The browser needs no Kubernetes API access, nor every service's address in its environment.
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      terminationGracePeriodSeconds: 5,
      ...(Object.keys(pool.nodeSelector).length > 0 ? { nodeSelector: pool.nodeSelector } : {}),
      ...(pool.tolerations.length > 0 ? { tolerations: pool.tolerations } : {}),
      containers: [
        {
          name: CONTAINER,
          image: pool.image,
          ports: [{ name: 'webdriver', containerPort: pool.port, protocol: 'TCP' }],
          env: [
            // The node ends a session idle this long itself, a backstop to gridgate's own idle timeout.
            {
              name: 'SE_NODE_SESSION_TIMEOUT',
              value: String(Math.max(1, Math.ceil(request.idleTimeoutMs / 1000))),
            },
            // Selenium Grid 4's managed downloads (se:downloadsEnabled, /se/files), which gridgate passes through.
            { name: 'SE_NODE_ENABLE_MANAGED_DOWNLOADS', value: 'true' },
          ],
          // Requests equal to limits: the Guaranteed class, first to stay when a node runs short.
          resources: {
            requests: { cpu: pool.cpu, memory: pool.memory },
            limits: { cpu: pool.cpu, memory: pool.memory },
          },
          volumeMounts: [{ name: 'dshm', mountPath: '/dev/shm' }],
        },
      ],
      volumes: [{ name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: SHM_SIZE } }],
    },
  };
}
