/** How gridgate reaches a session's remote end: a browser at its own address, or a hub every session shares. */

/** How to reach a session's remote end: origin, base path, and the credentials it expects. */
export interface UpstreamEndpoint {
  /** scheme://host:port */
  origin: string;
  /** Prefix before /session, e.g. "/wd/hub", or "". */
  basePath: string;
  /** The Authorization header for this upstream; never the client's. */
  authorization?: string;
}

/** The one remote end every session of a pool shares (a hub): its host:port and its endpoint. */
export interface SharedEndpoint {
  address: string;
  endpoint: UpstreamEndpoint;
}
