/**
 * `npm start`: the Node server from its production build (dist/server/), building it first when it is
 * missing or stale. Arguments pass through to the server (--config FILE).
 */
import { pathToFileURL } from 'node:url';
import { ensureServerBuild } from './server-build.mjs';

await import(pathToFileURL(await ensureServerBuild()).href);
