/** The Node server's production build (server-build.mjs). */
export const SERVER_ENTRY: string;
/** The V8 flags every process of the server runs with (npm start, the image, worker processes). */
export const SERVER_NODE_FLAGS: readonly string[];
/** Builds dist/server/ unless it is newer than every source; resolves to the entry's path. */
export function ensureServerBuild(): Promise<string>;
/** Bundles `entryPoints` with the production build's options beside `entry`, one of the files it makes. */
export function buildServer(entryPoints: Record<string, string>, entry: string): Promise<void>;
