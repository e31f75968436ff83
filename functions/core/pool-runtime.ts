/**
 * What a pool kind runs on where its browsers start: its launcher (start, stop) and the parts only some kinds
 * have, each a role of its own, so the launcher port stays two members and no kind stubs another's features.
 */
import type { Server } from 'node:net';
import type { Capabilities } from './capabilities';
import type { PoolConfig } from './config';
import type { HostPathContext } from './host-path-rules';
import type { FileTransfer, Launcher } from './ports';

/** Browsers of a pool started ahead of demand (the kinds that keep some: local, container, ecs). */
export interface WarmCounter {
  /**
   * How many are ready for a new session now. Asked only for pools with a `warm` setting; a count kept
   * elsewhere (an ecs pool's warm tasks in the store) is read when asked, so it may be a promise, and one
   * that rejects leaves the count unknown.
   */
  warmCount(pool: string): number | Promise<number>;
}

/**
 * For browsers on gridgate's own machine (local): the part of its file system a session's commands may name
 * (its folder), which the CDP commands on the command path are held to. A kind without it: the browser's
 * machine or container is its own, and its commands pass unread.
 */
export interface HostPathBounds {
  hostPaths(handle: string): HostPathContext;
  /**
   * The session's folder on this machine, made or not (a Playwright server serving the session keeps its
   * profile and artifacts there); undefined for a handle that names none.
   */
  folderOf(handle: string): string | undefined;
}

/**
 * Told when the browser answered the new-session request, with its capabilities: a kind that records the
 * session starts here (the local one's screencast needs the browser's DevTools address). A rejection fails
 * the new session, and the browser is stopped.
 */
export interface SessionOpener {
  opened(handle: string, capabilities: Capabilities): Promise<void>;
}

/**
 * host:port on gridgate's machine where a browser's DevTools answer once its SessionOpener ran: a local
 * browser's own port (or the one forwarded into its namespace), a container's DevTools door. gridgate serves
 * se:cdp, CDP and Playwright clients there, and records and captures the session there. A kind without it, or
 * undefined: out of gridgate's reach (ecs, eks, hub: what their node offers as se:cdp passes through).
 */
export interface DevtoolsDoors {
  devtools(handle: string): string | undefined;
}

/**
 * Where the noVNC server of a browser answers (http://host:port), for kinds whose noVNC port is not their
 * WebDriver address's host on the pool's vncPort (a container's, published on a port of its own); undefined:
 * none. A kind without it: found that way (ecs, eks).
 */
export interface VncOrigins {
  vncOrigin(handle: string): string | undefined;
}

/**
 * Ends what the pool's remote end still runs for sessions whose creation was abandoned (a head that died
 * between taking the slot and recording the session, so nobody knows the browser's session ID): a hub's
 * sessions asked for under these keys. Answers the key each ended upstream session was asked under, by its
 * ID. A kind without it: such a browser ends with the head that started it, or the scheduled cleanup finds it.
 */
export interface AbandonedSessions<P extends PoolConfig = PoolConfig> {
  endAbandoned(pool: P, keys: readonly string[]): Promise<Map<string, string>>;
}

/**
 * A TCP listener only the session's browser reaches, in that browser's own network: where gridgate serves a
 * Playwright client's exposeNetwork proxy (a local browser's namespace, or this machine's loopback for one
 * that shares its network). A kind without it: its browsers' network is none gridgate can enter, and
 * exposeNetwork is refused.
 */
export interface BrowserNetworks {
  listen(handle: string): Promise<BrowserNetworkListener>;
}

export interface BrowserNetworkListener {
  /** Listening already; its owner closes it. */
  server: Server;
  /** host:port of the listener as the browser names it. */
  address: string;
}

/**
 * For a kind whose stop ends the remote end and the browser together and throws their profile away (local):
 * a client's DELETE of a session whose browser runs here is answered once stop() is done, with W3C's null
 * value, without asking the remote end to quit first. chromedriver quits a browser it was given a profile for
 * gracefully (Browser.close, then the profile written back: 100–200 ms of every DELETE here) and kills at once
 * one whose profile it made itself; gridgate gives every local browser its profile and removes it right after.
 * A kind without it, or false: the remote end is asked first (a hub ends its session so, a node its browser).
 */
export interface StopEndsSession {
  stopEndsSession(handle: string): boolean;
}

/** One pool kind's runtime, typed for its pools (`P`). */
export interface PoolRuntime<P extends PoolConfig = PoolConfig> {
  launcher: Launcher<P>;
  warm?: WarmCounter;
  /** File transfer gridgate serves itself for the kind's browsers (local); none: the node serves it. */
  files?: FileTransfer;
  hostPaths?: HostPathBounds;
  opener?: SessionOpener;
  devtools?: DevtoolsDoors;
  vnc?: VncOrigins;
  abandoned?: AbandonedSessions<P>;
  network?: BrowserNetworks;
  ending?: StopEndsSession;
}

/** Each pool kind's runtime under the kind's name. */
export type RuntimesByKind = { [K in PoolConfig['kind']]?: PoolRuntime<Extract<PoolConfig, { kind: K }>> };
