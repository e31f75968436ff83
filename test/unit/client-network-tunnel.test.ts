import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import {
  ClientNetworkTunnel,
  TunnelRefusal,
} from '../../functions/servers/node/playwright/client-network-tunnel';

interface Sent {
  guid: string;
  method: string;
  params: Record<string, unknown>;
}

/** The client's socket as the tunnel sees it: what it is sent, in order. */
function clientSocket() {
  const sent: Sent[] = [];
  const socket = { OPEN: 1, readyState: 1, send: (text: string) => sent.push(JSON.parse(text)) };
  return { socket: socket as unknown as WebSocket, sent };
}

/** A message of the client's to the tunnel's object, as Playwright's SocksInterceptor sends it. */
const fromClient = (guid: string, id: number, method: string, params: Record<string, unknown>) =>
  Buffer.from(JSON.stringify({ id, guid, method, params, metadata: { internal: true } }));

describe("the client's end of exposeNetwork (Playwright's SocksSupport object)", () => {
  it('announces the object on the client socket, a child of the root, before anything else', () => {
    const tunnel = new ClientNetworkTunnel();
    const { socket, sent } = clientSocket();
    tunnel.attach(socket);
    expect(sent).toEqual([
      {
        guid: '',
        method: '__create__',
        params: { type: 'SocksSupport', initializer: {}, guid: expect.any(String) },
      },
    ]);
  });

  it('opens a connection through the client and carries its bytes both ways, base64 as Playwright does', async () => {
    const tunnel = new ClientNetworkTunnel();
    const { socket, sent } = clientSocket();
    tunnel.attach(socket);
    const guid = sent[0]?.params.guid as string;
    const received: string[] = [];
    let ended = false;
    const opening = tunnel.open('localhost', 3000, {
      data: (chunk) => received.push(chunk.toString()),
      end: () => {
        ended = true;
      },
    });
    const request = sent[1] as Sent;
    expect(request).toMatchObject({
      guid,
      method: 'socksRequested',
      params: { host: 'localhost', port: 3000 },
    });
    const uid = request.params.uid as string;
    const connected = fromClient(guid, -1, 'socksConnected', { uid, host: '127.0.0.1', port: 50000 });
    expect(tunnel.mayCheck(connected)).toBe(true);
    // The client's call is answered by the tunnel, never passed on to the server.
    expect(await tunnel.decide(connected)).toEqual({ answer: JSON.stringify({ id: -1, result: {} }) });
    const connection = await opening;
    connection.write(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
    expect(sent[2]).toEqual({
      guid,
      method: 'socksData',
      params: { uid, data: Buffer.from('GET / HTTP/1.1\r\n\r\n').toString('base64') },
    });
    await tunnel.decide(
      fromClient(guid, -2, 'socksData', { uid, data: Buffer.from('HTTP/1.1 200').toString('base64') }),
    );
    expect(received).toEqual(['HTTP/1.1 200']);
    await tunnel.decide(fromClient(guid, -3, 'socksEnd', { uid }));
    expect(ended).toBe(true);
  });

  it("rejects an open the client refuses with the client's error code", async () => {
    const tunnel = new ClientNetworkTunnel();
    const { socket, sent } = clientSocket();
    tunnel.attach(socket);
    const guid = sent[0]?.params.guid as string;
    const opening = tunnel.open('localhost', 3001, { data: () => {}, end: () => {} });
    const uid = sent[1]?.params.uid as string;
    await tunnel.decide(fromClient(guid, -1, 'socksFailed', { uid, errorCode: 'ECONNREFUSED' }));
    await expect(opening).rejects.toEqual(new TunnelRefusal('ECONNREFUSED'));
  });

  it("passes on the client's other messages unchanged, and ends every connection when it closes", async () => {
    const tunnel = new ClientNetworkTunnel();
    const { socket } = clientSocket();
    tunnel.attach(socket);
    const other = Buffer.from(JSON.stringify({ id: 7, guid: 'page@1', method: 'goto', params: {} }));
    expect(tunnel.mayCheck(other)).toBe(false);
    const opening = tunnel.open('localhost', 3002, { data: () => {}, end: () => {} });
    tunnel.close();
    await expect(opening).rejects.toBeInstanceOf(TunnelRefusal);
  });
});
