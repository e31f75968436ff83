/**
 * The SOCKS5 messages a proxy reads and answers (RFC 1928), as far as a browser's proxy needs them: the
 * method greeting, a CONNECT request, and the reply. Each reader takes the bytes received so far and says
 * how many it used, or undefined while more are needed.
 */

const VERSION = 5;
export const NO_AUTHENTICATION = 0;
const NO_ACCEPTABLE_METHODS = 0xff;
export const CONNECT = 1;

/** RFC 1928 §6's reply codes. */
export const REPLY = {
  succeeded: 0,
  generalFailure: 1,
  notAllowedByRuleset: 2,
  networkUnreachable: 3,
  hostUnreachable: 4,
  connectionRefused: 5,
  commandNotSupported: 7,
  addressTypeNotSupported: 8,
} as const;

export type ReplyCode = (typeof REPLY)[keyof typeof REPLY];

export class Socks5Error extends Error {}

export interface Greeting {
  methods: number[];
  length: number;
}

/** VER NMETHODS METHODS... (§3). */
export function readGreeting(bytes: Buffer): Greeting | undefined {
  if (bytes.length < 2) return undefined;
  expectVersion(bytes[0]);
  const count = bytes[1] as number;
  if (bytes.length < 2 + count) return undefined;
  return { methods: [...bytes.subarray(2, 2 + count)], length: 2 + count };
}

/** The server's choice of method: none (no authentication) or, when the client offers none, a refusal. */
export function methodChoice(greeting: Greeting): Buffer {
  const accepted = greeting.methods.includes(NO_AUTHENTICATION);
  return Buffer.from([VERSION, accepted ? NO_AUTHENTICATION : NO_ACCEPTABLE_METHODS]);
}

export interface Request {
  command: number;
  /** A domain name as sent, an IPv4 address dotted, an IPv6 address as its eight groups (uncompressed). */
  host: string;
  port: number;
  length: number;
}

/** VER CMD RSV ATYP DST.ADDR DST.PORT (§4), or a Socks5Error for an address type RFC 1928 does not define. */
export function readRequest(bytes: Buffer): Request | undefined {
  if (bytes.length < 5) return undefined;
  expectVersion(bytes[0]);
  const command = bytes[1] as number;
  const type = bytes[3];
  const addressLength = type === 1 ? 4 : type === 4 ? 16 : type === 3 ? 1 + (bytes[4] as number) : undefined;
  if (addressLength === undefined) throw new Socks5Error(`address type ${type} is not SOCKS5's`);
  const length = 4 + addressLength + 2;
  if (bytes.length < length) return undefined;
  const address = bytes.subarray(4, 4 + addressLength);
  const host =
    type === 1 ? [...address].join('.') : type === 3 ? address.subarray(1).toString('latin1') : ipv6(address);
  return { command, host, port: bytes.readUInt16BE(4 + addressLength), length };
}

/** The reply; its bound address is left unspecified (0.0.0.0:0): a browser's proxy client does not read it. */
export function reply(code: ReplyCode): Buffer {
  return Buffer.from([VERSION, code, 0, 1, 0, 0, 0, 0, 0, 0]);
}

function expectVersion(version: number | undefined): void {
  if (version !== VERSION) throw new Socks5Error(`version ${version} is not SOCKS5`);
}

function ipv6(address: Buffer): string {
  return Array.from({ length: 8 }, (_, i) => address.readUInt16BE(i * 2).toString(16)).join(':');
}
