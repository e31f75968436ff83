/**
 * A hub pool's session videos and logs, where Selenoid keeps them: the hub's own `/video/{id}.mp4` and
 * `/logs/{id}.log` for the hub's session ID, asked with the hub's credentials and passed through as they
 * come, as ggr does (core/selenoid-paths.ts): a byte range asked (a video element seeking) goes to the hub
 * and its 206 or 416 comes back, and a DELETE is Selenoid's removal of the file. A hub that has none (404:
 * not recorded, deleted, or a hub such as Selenium Grid that serves no such path) gives none.
 */
import type { Readable } from 'node:stream';
import { type Dispatcher, getGlobalDispatcher } from 'undici';
import type {
  Artifact,
  ArtifactAsk,
  ArtifactKind,
  ArtifactSession,
  ArtifactSource,
  RemovedArtifact,
} from '../../core/artifact-ports';
import { upstreamEndpoint } from '../../core/browser-network';
import type { PoolConfig } from '../../core/config';
import { WebDriverError } from '../../core/errors';
import { hubPathOf } from '../../core/selenoid-paths';

// The hub's answer headers worth passing on with a file it serves.
const PASSED_HEADERS = [
  'content-type',
  'content-length',
  'content-range',
  'last-modified',
  'etag',
  'accept-ranges',
];
// A person or a test report is waiting; a hub slower than this to start answering is an error.
const HEADERS_TIMEOUT_MS = 30_000;

/** What a hub (Selenoid, Moon, ggr) keeps of a session: its video and its log, nothing the grid captured. */
const keptByHub = (kind: ArtifactKind | 'screenshot'): kind is 'video' | 'log' =>
  kind === 'video' || kind === 'log';

export class HubArtifacts implements ArtifactSource {
  /** `poolOf`: the hub pool a session ran in (its name and address, checked as every session ID's are). */
  constructor(
    private readonly poolOf: (session: ArtifactSession) => PoolConfig | undefined,
    private readonly agent: Dispatcher = getGlobalDispatcher(),
  ) {}

  find(
    session: ArtifactSession,
    kind: ArtifactKind | 'screenshot',
    ask: ArtifactAsk = { method: 'GET' },
  ): Promise<Artifact | undefined> {
    if (!keptByHub(kind)) return Promise.resolve(undefined);
    const headers: Record<string, string> = {};
    if (ask.range !== undefined) headers.range = ask.range;
    if (ask.ifRange !== undefined) headers['if-range'] = ask.ifRange;
    return this.ask(session, kind, ask.method, headers);
  }

  remove(session: ArtifactSession, kind: ArtifactKind): Promise<RemovedArtifact | undefined> {
    if (!keptByHub(kind)) return Promise.resolve(undefined);
    return this.ask(session, kind, 'DELETE', {});
  }

  private async ask(
    session: ArtifactSession,
    kind: 'video' | 'log',
    method: 'GET' | 'HEAD' | 'DELETE',
    asked: Record<string, string>,
  ): Promise<Extract<Artifact, { kind: 'stream' }> | undefined> {
    const pool = this.poolOf(session);
    if (pool?.kind !== 'hub') return undefined;
    const endpoint = upstreamEndpoint(pool, session.address);
    const path = hubPathOf(
      { kind: kind === 'log' ? 'logs' : 'video', token: '', rest: '' },
      session.upstreamId,
    );
    let response: Dispatcher.ResponseData;
    try {
      response = await this.agent.request({
        origin: endpoint.origin,
        path,
        method,
        headers: { ...asked, ...(endpoint.authorization ? { authorization: endpoint.authorization } : {}) },
        headersTimeout: HEADERS_TIMEOUT_MS,
      });
    } catch (error) {
      throw new WebDriverError('unknown error', `the hub could not be reached: ${(error as Error).message}`, {
        status: 502,
        cause: error,
      });
    }
    if (response.statusCode === 404) {
      await response.body.dump();
      return undefined;
    }
    const headers: Record<string, string> = { 'cache-control': 'private, no-cache' };
    for (const name of PASSED_HEADERS) {
      const value = response.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    return { kind: 'stream', status: response.statusCode, headers, body: response.body as Readable };
  }
}
