/**
 * An eks session's log on Selenoid's path, through the whole app with the wiring every entry uses
 * (pools/eks/eks-recordings.ts): while its pod runs, `GET /logs/{id}.log` answers the owner (and an admin) with
 * the browser container's log, read from the fake Kubernetes API by the real pod API client; once the pod is
 * gone, with a presigned redirect to the copy kept in the recordings bucket (the fake S3, a real S3Client).
 * Anyone else gets the same 404 as an unknown ID; a busy API server is a W3C 503.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionPool } from '../../functions/core/grid-deps';
import type { UserDirectory } from '../../functions/core/ports';
import { eksRecordings } from '../../functions/pools/eks/eks-recordings';
import { cutNote, POD_LOG_BYTES } from '../../functions/pools/eks/pod-log-bound';
import { expectW3cError, type FakeGrid, startFakeGrid } from '../support/fake-grid';
import { browserAndRecorderPod, FakeKubernetesApi } from '../support/fake-kubernetes-api';
import { FAKE_S3_CREDENTIALS, FAKE_S3_REGION, FakeS3 } from '../support/fake-s3';

const TOKEN = 'k8s-aws-v1.http-logs';
const BUCKET = 'gridgate-recordingsbucket-9z8y7x';
const NS = 'gridgate';
const users: UserDirectory = { verify: async (user, password) => password === `${user}-pw` };
const as = (user: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${user}-pw`).toString('base64')}`,
});
const EKS = {
  kind: 'eks',
  cluster: 'browsers',
  namespace: NS,
  endpoint: 'https://kubernetes.invalid',
  networks: ['10.0.0.0/8'],
};

let grid: FakeGrid;
let kube: FakeKubernetesApi;
let s3: FakeS3;

beforeEach(async () => {
  [kube, s3] = await Promise.all([FakeKubernetesApi.start({ token: TOKEN }), FakeS3.start([BUCKET])]);
  grid = startFakeGrid({
    config: {
      usersFile: 'users.htpasswd',
      admins: ['root'],
      guest: null,
      browsers: { chrome: { versions: { stable: { pools: ['recorded', 'plain'] } } } },
      pools: {
        recorded: {
          ...EKS,
          recorder: { image: 'selenium/video:ffmpeg-7.1', bucket: BUCKET, region: FAKE_S3_REGION },
        },
        plain: EKS,
      },
    },
    users,
  });
  const client = new S3Client({
    region: FAKE_S3_REGION,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: FAKE_S3_CREDENTIALS,
  });
  const api = kube.podApi();
  grid.deps.artifacts = {
    eks: eksRecordings((session) => sessionPool(grid.deps, session), {
      s3Client: async () => client,
      podApis: { aws: async () => () => api },
      clock: grid.clock,
    }),
  };
});
afterEach(async () => {
  await grid.close();
  await Promise.all([kube.close(), s3.close()]);
});

/** A running pod of `pool` for `user`'s session, its browser having logged `text`; the session's ID. */
async function podSession(user: string, pool: string, text?: string): Promise<{ id: string; key: string }> {
  const key = `0011223344${user.length}`;
  const handle = `gg-${key}-abc123`;
  await kube.podApi().create(NS, browserAndRecorderPod(handle));
  if (text) kube.writeLog(NS, handle, 'browser', text);
  const claims = {
    key,
    pool,
    address: '10.0.1.5:4444',
    upstreamId: 'd1e2f3',
    handle,
    devtools: '',
    createdAt: grid.clock.now(),
    maxAgeMs: 3_600_000,
  };
  await grid.sessions.add({
    ...claims,
    user,
    browserName: 'chrome',
    browserVersion: 'stable',
    lastActivityAt: claims.createdAt,
    idleTimeoutMs: 60_000,
  });
  return { id: grid.deps.tokens.sign(claims, user), key };
}

describe('an eks session’s log', () => {
  it('is its running pod’s browser log for its owner and an admin, whole, with its length', async () => {
    const { id } = await podSession('alice', 'recorded', 'Started Selenium\nSession created\n');
    for (const user of ['alice', 'root']) {
      const answer = await grid.app.request(`/logs/${id}.log`, { headers: as(user) });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(answer.headers.get('content-length')).toBe('33');
      expect(answer.headers.get('cache-control')).toBe('private, no-cache');
      expect(await answer.text()).toBe('Started Selenium\nSession created\n');
    }
    const head = await grid.app.request(`/logs/${id}.log`, { method: 'HEAD', headers: as('alice') });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('33');
    // The browser container's, by name: the pod has a recorder beside it; one read for the three asking at once.
    expect(
      kube.callsOf('GET').map((call) => new URL(call.path, 'http://k').searchParams.get('container')),
    ).toEqual(['browser']);
  });

  it('is cut at POD_LOG_BYTES with a line saying so, when the browser logged more', async () => {
    const line = 'x'.repeat(1023);
    const logged = `${line}\n`.repeat(POD_LOG_BYTES / 1024 + 3);
    const { id } = await podSession('alice', 'plain', logged);
    const answer = await grid.app.request(`/logs/${id}.log`, { headers: as('alice') });
    expect(answer.status).toBe(200);
    const text = await answer.text();
    expect(text).toBe(`${logged.slice(0, POD_LOG_BYTES)}${cutNote(POD_LOG_BYTES)}`);
    expect(answer.headers.get('content-length')).toBe(String(text.length));
  });

  it('is read once for everyone asking within two seconds, and again after', async () => {
    const { id, key } = await podSession('alice', 'plain', 'one\n');
    const ask = async () => (await grid.app.request(`/logs/${id}.log`, { headers: as('alice') })).text();
    expect(await Promise.all([ask(), ask(), ask()])).toEqual(['one\n', 'one\n', 'one\n']);
    kube.writeLog(NS, `gg-${key}-abc123`, 'browser', 'two\n');
    grid.clock.advance(1999);
    expect(await ask()).toBe('one\n');
    expect(kube.callsOf('GET')).toHaveLength(1);
    grid.clock.advance(1);
    expect(await ask()).toBe('one\ntwo\n');
    expect(kube.callsOf('GET')).toHaveLength(2);
  });

  it('is the same 404 for anyone else as for an ID that is no session, and nothing is read', async () => {
    const { id } = await podSession('alice', 'recorded', 'secret\n');
    const other = await grid.app.request(`/logs/${id}.log`, { headers: as('bob') });
    const unknown = await grid.app.request('/logs/not-a-session.log', { headers: as('bob') });
    const message = await expectW3cError(other, 404, 'invalid session id');
    expect(await expectW3cError(unknown, 404, 'invalid session id')).toBe(message);
    expect(kube.callsOf('GET')).toEqual([]);
    expect(s3.calls).toEqual([]);
  });

  it('is a presigned redirect to the copy kept in the recordings bucket once the pod is gone', async () => {
    const { id, key } = await podSession('alice', 'recorded', 'Started Selenium\n');
    await kube.podApi().delete(NS, `gg-${key}-abc123`);
    s3.put(BUCKET, `logs/${key}.log`, Buffer.from('Started Selenium\nSession deleted\n'), 'text/plain');
    const answer = await grid.app.request(`/logs/${id}.log`, { headers: as('alice') });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const location = answer.headers.get('location') ?? '';
    expect(new URL(location).pathname).toBe(`/${BUCKET}/logs/${key}.log`);
    const kept = await fetch(location);
    expect(kept.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await kept.text()).toBe('Started Selenium\nSession deleted\n');
  });

  it('is a W3C 404 once the pod is gone with nothing kept, and a pool without a bucket asks S3 nothing', async () => {
    const recorded = await podSession('alice', 'recorded');
    const plain = await podSession('bob', 'plain', 'line\n');
    await kube.podApi().delete(NS, `gg-${recorded.key}-abc123`);
    const gone = await grid.app.request(`/logs/${recorded.id}.log`, { headers: as('alice') });
    await expectW3cError(gone, 404, 'invalid session id', /no log of this session/);
    const live = await grid.app.request(`/logs/${plain.id}.log`, { headers: as('bob') });
    expect(await live.text()).toBe('line\n');
    expect(s3.calls.map((call) => call.key)).toEqual([`logs/${recorded.key}.log`]);
  });

  it('is a W3C 503 with Retry-After while the API server throttles', async () => {
    const { id } = await podSession('alice', 'plain', 'line\n');
    kube.throttleNext = 1;
    const answer = await grid.app.request(`/logs/${id}.log`, { headers: as('alice') });
    expect(answer.headers.get('retry-after')).toBe('5');
    await expectW3cError(answer, 503, 'unknown error', /Kubernetes API is busy/);
  });
});
