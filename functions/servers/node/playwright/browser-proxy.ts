/**
 * The SOCKS5 proxy of a Playwright session whose client exposes its network: the browser's contexts send it
 * what their bypass rules do not keep (exposed-network.ts), and it opens through the client's tunnel only
 * what the client's pattern exposes. Everything else is refused (RFC 1928's "not allowed by ruleset"): it is
 * never connected to from here, the grid's own network, where a page would reach what the session's own
 * namespace keeps from it.
 */
import type { Server, Socket } from 'node:net';
import type { ExposedNetwork } from '../../../core/exposed-network';
import {
  CONNECT,
  methodChoice,
  NO_AUTHENTICATION,
  REPLY,
  type ReplyCode,
  readGreeting,
  readRequest,
  reply,
  Socks5Error,
} from '../../../core/socks5-wire';
import { type ClientNetworkTunnel, type TunnelConnection, TunnelRefusal } from './client-network-tunnel';

// A proxy client that says nothing in this time after connecting is not the browser: it is let go.
const HANDSHAKE_TIMEOUT_MS = 10_000;

/** Serves every connection `server` accepts; `sockets` is where they are kept until the session ends. */
export function serveBrowserProxy(
  server: Server,
  network: ExposedNetwork,
  tunnel: ClientNetworkTunnel,
  sockets: Set<Socket>,
): void {
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () => socket.destroy());
    handshake(socket)
      .then((request) => {
        socket.setTimeout(0);
        if (!request) return;
        if (request.command !== CONNECT) return refuse(socket, REPLY.commandNotSupported);
        if (!network.exposes(request.host, request.port)) return refuse(socket, REPLY.notAllowedByRuleset);
        return connectThroughTunnel(socket, tunnel, request);
      })
      .catch(() => socket.destroy());
  });
}

/**
 * Greeting and request, and what the client sent after them; undefined when the client offered no method
 * this proxy accepts (told so).
 */
async function handshake(socket: Socket) {
  const bytes = reader(socket);
  try {
    const greeting = await bytes.read(readGreeting);
    const choice = methodChoice(greeting);
    socket.write(choice);
    if (choice[1] !== NO_AUTHENTICATION) {
      socket.end();
      return undefined;
    }
    const request = await bytes.read(readRequest);
    return { ...request, rest: bytes.stop() };
  } catch (error) {
    bytes.stop();
    if (error instanceof Socks5Error) refuse(socket, REPLY.addressTypeNotSupported);
    throw error;
  }
}

async function connectThroughTunnel(
  socket: Socket,
  tunnel: ClientNetworkTunnel,
  { host, port, rest }: { host: string; port: number; rest: Buffer },
) {
  socket.pause();
  let connection: TunnelConnection;
  try {
    connection = await tunnel.open(host, port, {
      data: (chunk) => socket.write(chunk),
      end: () => socket.end(),
    });
  } catch (error) {
    return refuse(socket, error instanceof TunnelRefusal ? replyFor(error.errorCode) : REPLY.generalFailure);
  }
  socket.write(reply(REPLY.succeeded));
  if (rest.length) connection.write(rest);
  socket.on('data', (chunk: Buffer) => connection.write(chunk));
  socket.once('close', () => connection.close());
  socket.resume();
}

function refuse(socket: Socket, code: ReplyCode): void {
  socket.end(reply(code));
}

/** The reply for the client's socket error, as Playwright's own proxy maps it (socksProxy.ts). */
function replyFor(errorCode: string): ReplyCode {
  switch (errorCode) {
    case 'ENOENT':
    case 'ENOTFOUND':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
      return REPLY.hostUnreachable;
    case 'ENETUNREACH':
      return REPLY.networkUnreachable;
    case 'ECONNREFUSED':
      return REPLY.connectionRefused;
    case 'ERULESET':
      return REPLY.notAllowedByRuleset;
    default:
      return REPLY.generalFailure;
  }
}

/** Reads one message at a time from the socket's bytes, keeping what follows it for the next read. */
function reader(socket: Socket) {
  let buffered = Buffer.alloc(0);
  let wake = () => {};
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    wake();
  };
  const onGone = () => wake();
  socket.on('data', onData);
  socket.on('close', onGone);
  return {
    async read<T extends { length: number }>(parse: (bytes: Buffer) => T | undefined): Promise<T> {
      for (;;) {
        const message = parse(buffered);
        if (message) {
          buffered = buffered.subarray(message.length);
          return message;
        }
        if (socket.readableEnded || socket.destroyed) throw new Error('the proxy client went away');
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    /** Reads no more; what came after the last message read (a client need not wait for the reply). */
    stop(): Buffer {
      socket.off('data', onData);
      socket.off('close', onGone);
      return buffered;
    },
  };
}
