/**
 * What the bundles get when code imports 'undici' (the Lambda's, router-bundle-options.ts, and the Node
 * server's production build, scripts/server-build.mjs, alias it here):
 * the same undici classes and functions, from its lib files, without index.js, which loads all of
 * undici (fetch, WebSocket, EventSource, caches, mocks: about 230 KiB of a bundle, since esbuild
 * cannot tree-shake CommonJS). Only the names the bundled entries import are here: a name missing
 * fails the build ("No matching export"), never the running function. Tests, and the server run from
 * source, use undici itself.
 */
import type * as Undici from 'undici';
// @ts-expect-error as above
import api from '../../node_modules/undici/lib/api/index.js';
// @ts-expect-error as above
import errors from '../../node_modules/undici/lib/core/errors.js';
// @ts-expect-error as above
import util from '../../node_modules/undici/lib/core/util.js';
// By path, not 'undici/lib/…': the bundles alias 'undici' and everything under it to this file.
// @ts-expect-error undici's lib files have no type declarations; typed below from undici's own.
import AgentClass from '../../node_modules/undici/lib/dispatcher/agent.js';
// @ts-expect-error as above
import DispatcherClass from '../../node_modules/undici/lib/dispatcher/dispatcher.js';
// @ts-expect-error as above
import PoolClass from '../../node_modules/undici/lib/dispatcher/pool.js';
// @ts-expect-error as above
import globalDispatcher from '../../node_modules/undici/lib/global.js';

// As undici's index.js: the request/stream/pipeline/upgrade/connect methods every Dispatcher has.
Object.assign(DispatcherClass.prototype, api);

export const Agent = AgentClass as typeof Undici.Agent;
export const Dispatcher = DispatcherClass as typeof Undici.Dispatcher;
export const Pool = PoolClass as typeof Undici.Pool;
export const getGlobalDispatcher = globalDispatcher.getGlobalDispatcher as typeof Undici.getGlobalDispatcher;
export const setGlobalDispatcher = globalDispatcher.setGlobalDispatcher as typeof Undici.setGlobalDispatcher;

type RequestOptions = { dispatcher?: Undici.Dispatcher; agent?: unknown; path?: string } & Record<
  string,
  unknown
>;

/** undici's top-level request(): index.js's makeDispatcher(api.request), line for line. */
export const request = ((
  url: string | URL | RequestOptions,
  opts?: RequestOptions | null,
  handler?: unknown,
) => {
  if (typeof opts === 'function') {
    handler = opts;
    opts = null;
  }
  if (
    !url ||
    (typeof url !== 'string' && typeof url !== 'object' && !((url as unknown as object) instanceof URL))
  ) {
    throw new errors.InvalidArgumentError('invalid url');
  }
  if (opts != null && typeof opts !== 'object') {
    throw new errors.InvalidArgumentError('invalid opts');
  }
  let target: URL;
  if (opts && opts.path != null) {
    if (typeof opts.path !== 'string') {
      throw new errors.InvalidArgumentError('invalid opts.path');
    }
    const path = opts.path.startsWith('/') ? opts.path : `/${opts.path}`;
    target = new URL(util.parseOrigin(url).origin + path);
  } else {
    if (!opts) {
      opts = typeof url === 'object' ? (url as RequestOptions) : {};
    }
    target = util.parseURL(url);
  }
  const { agent, dispatcher = getGlobalDispatcher() } = opts;
  if (agent) {
    throw new errors.InvalidArgumentError('unsupported opts.agent. Did you mean opts.client?');
  }
  return api.request.call(
    dispatcher,
    {
      ...opts,
      origin: target.origin,
      path: target.search ? `${target.pathname}${target.search}` : target.pathname,
      method: opts.method || (opts.body ? 'PUT' : 'GET'),
    },
    handler,
  );
}) as typeof Undici.request;
