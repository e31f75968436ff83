import { once } from 'node:events';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { exposedNetwork } from '../../functions/core/exposed-network';
import { serveBrowserProxy } from '../../functions/servers/node/playwright/browser-proxy';
import {
  type ClientNetworkTunnel,
  TunnelRefusal,
  type TunnelSink,
} from '../../functions/servers/node/playwright/client-network-tunnel';

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A tunnel that records what it is asked to open and answers as `answer` says. */
function tunnelThat(answer: (host: string, port: number, sink: TunnelSink) => Promise<void>) {
  const opened: string[] = [];
  const written: Buffer[] = [];
  const tunnel = {
    async open(host: string, port: number, sink: TunnelSink) {
      opened.push(`${host}:${port}`);
      await answer(host, port, sink);
      return { write: (chunk: Buffer) => written.push(chunk), close: () => {} };
    },
  } as unknown as ClientNetworkTunnel;
  return { tunnel, opened, written };
}

async function proxy(pattern: string, tunnel: ClientNetworkTunnel): Promise<number> {
  const server = createServer();
  servers.push(server);
  serveBrowserProxy(
    server,
    exposedNetwork(pattern) as NonNullable<ReturnType<typeof exposedNetwork>>,
    tunnel,
    new Set(),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/** A SOCKS5 client's greeting and request for host:port (a domain name, as Chromium sends every host). */
async function ask(
  port: number,
  host: string,
  target: number,
  command = 1,
): Promise<{ reply: Buffer; socket: Socket }> {
  const socket = tcpConnect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(Buffer.from([5, 1, 0]));
  const [choice] = (await once(socket, 'data')) as [Buffer];
  expect([...choice]).toEqual([5, 0]);
  const name = Buffer.from(host);
  socket.write(
    Buffer.concat([
      Buffer.from([5, command, 0, 3, name.length]),
      name,
      Buffer.from([target >> 8, target & 255]),
    ]),
  );
  const [reply] = (await once(socket, 'data')) as [Buffer];
  return { reply, socket };
}

describe('the SOCKS5 proxy of a session whose client exposes its network', () => {
  it('opens an exposed host through the tunnel and carries the bytes after the reply', async () => {
    const { tunnel, opened, written } = tunnelThat(async () => {});
    const { reply, socket } = await ask(await proxy('<loopback>', tunnel), 'localhost', 3000);
    expect(reply[1]).toBe(0);
    expect(opened).toEqual(['localhost:3000']);
    socket.write('GET / HTTP/1.1\r\n\r\n');
    await expect.poll(() => Buffer.concat(written).toString()).toBe('GET / HTTP/1.1\r\n\r\n');
    socket.destroy();
  });

  it('refuses a host the pattern does not expose (not allowed by ruleset) and never asks the client', async () => {
    const { tunnel, opened } = tunnelThat(async () => {});
    const { reply, socket } = await ask(await proxy('localhost:3000', tunnel), '127.0.0.1', 3000);
    expect(reply[1]).toBe(2);
    expect(opened).toEqual([]);
    socket.destroy();
  });

  it('answers a command other than CONNECT as not supported', async () => {
    const { tunnel, opened } = tunnelThat(async () => {});
    const { reply, socket } = await ask(await proxy('<loopback>', tunnel), 'localhost', 3000, 3);
    expect(reply[1]).toBe(7);
    expect(opened).toEqual([]);
    socket.destroy();
  });

  it("answers the client's refusal with its SOCKS5 code", async () => {
    const { tunnel } = tunnelThat(async () => {
      throw new TunnelRefusal('ECONNREFUSED');
    });
    const { reply, socket } = await ask(await proxy('<loopback>', tunnel), 'localhost', 3000);
    expect(reply[1]).toBe(5);
    socket.destroy();
  });
});
