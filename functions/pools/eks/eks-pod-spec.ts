/**
 * The pod gridgate starts for one session (with docker-selenium's video recorder beside the browser when
 * the pool has one), and how its pods are marked: the labels the cleanup lists them by and the annotation it
 * reads their age from. The launcher and the cleanup share these: change one, change both.
 */
import { randomBytes } from 'node:crypto';
import { hardLifetimeSeconds } from '../../core/browser-lifetime';
import type { LaunchRequest } from '../../core/ports';
import { screenAndZoneEnvironment } from '../../core/screen-and-zone';
import { RECORDER_CONTAINER, recorderEnvironment } from '../selenium-node/recorder-environment';
import type { DeployedEksPool } from './eks-pool-check';

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

/** What podNameFor makes: a handle that is anything else names no pod of gridgate's. */
export const POD_NAME = /^gg-[a-z0-9-]{1,60}$/;

/** Selects every pod gridgate started. */
export const GRID_SELECTOR = `${POD_LABELS.grid}=true`;
/** The browser container's name in every pod. */
export const CONTAINER = 'browser';

// A pod without a recorder has nothing to finish: the browser is stopped at once.
const GRACE_SECONDS = 5;
/**
 * A recorder's pod is given what docker-selenium's recorder allows itself to stop: its supervisord waits up
 * to 30 s for the recording program (ffmpeg finishing the file, then the rclone upload) and up to 30 s for
 * the uploader (Video/supervisord.conf, stopwaitsecs=30 each) before killing them.
 */
const RECORDER_GRACE_SECONDS = 60;
/**
 * Kubernetes signals every container of a deleted pod at once. The browser container's preStop holds its X
 * display (and /status) up this long, so the recorder, signalled at once, stops ffmpeg on a display that is
 * still there and the file is finished rather than cut off by the display vanishing.
 */
const DISPLAY_HOLD_SECONDS = 5;

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
  pool: DeployedEksPool,
  request: LaunchRequest,
  name: string,
  createdAt: number,
): Pod {
  const { recorder } = pool;
  // The session's time zone and screen (se:timeZone, se:screenResolution): every container of its pod starts
  // with them, the recorder too, whose ffmpeg grabs SE_SCREEN_WIDTH x SE_SCREEN_HEIGHT of the display.
  const session = screenAndZoneEnvironment(request.capabilities);
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
      // Neither container needs Kubernetes API access, nor every service's address in its environment. The
      // recorder's AWS credentials come from EKS Pod Identity, whose token volume does not depend on this.
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      // The service account the recordings bucket's Pod Identity association names.
      ...(recorder ? { serviceAccountName: recorder.serviceAccount } : {}),
      terminationGracePeriodSeconds: recorder ? RECORDER_GRACE_SECONDS : GRACE_SECONDS,
      // The pod ends itself past its longest use, even when no gridgate process or cleanup is left to delete
      // it: the kubelet stops a pod running longer than this (PodSpec activeDeadlineSeconds).
      activeDeadlineSeconds: hardLifetimeSeconds(request.inUseMs),
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
            ...envVars(session),
          ],
          // Requests equal to limits: the Guaranteed class, first to stay when a node runs short.
          resources: {
            requests: { cpu: pool.cpu, memory: pool.memory },
            limits: { cpu: pool.cpu, memory: pool.memory },
          },
          volumeMounts: [{ name: 'dshm', mountPath: '/dev/shm' }],
          ...(recorder
            ? { lifecycle: { preStop: { exec: { command: ['sleep', String(DISPLAY_HOLD_SECONDS)] } } } }
            : {}),
        },
        ...(recorder ? [recorderContainer(pool.port, recorder, session)] : []),
      ],
      volumes: [{ name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: SHM_SIZE } }],
    },
  };
}

/** docker-selenium's recorder, as in an ecs task (recorder-environment.ts), with requests equal to limits. */
function recorderContainer(
  port: number,
  recorder: NonNullable<DeployedEksPool['recorder']>,
  session: Record<string, string>,
): Pod {
  const { image, bucket, region, cpu, memory } = recorder;
  return {
    name: RECORDER_CONTAINER,
    image,
    env: envVars({ ...recorderEnvironment({ port, bucket, region }), ...session }),
    resources: { requests: { cpu, memory }, limits: { cpu, memory } },
  };
}

/** Variables as a container's `env` lists them. */
const envVars = (variables: Record<string, string>) =>
  Object.entries(variables).map(([name, value]) => ({ name, value }));
