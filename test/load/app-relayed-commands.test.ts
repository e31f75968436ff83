/**
 * `npm start` (a child process, as users run it) relaying the commands its Hono app answers rather than the
 * native command path: Selenium Grid 4's file transfer for a session whose hub serves it (a hub, ecs or eks
 * pool's node answers `/se/file` and `/se/files`). The app streams the hub's answer into Node's response itself
 * and tells @hono/node-server it is sent; a marker the adapter did not recognise made it write a second head
 * after the answer, an ERR_HTTP_HEADERS_SENT stack on stderr for every such command.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { W3C_CHROME } from '../support/fake-grid';
import { FakeUpstream, jsonAnswer } from '../support/fakes';
import { type NodeServerProcess, startNodeServer } from '../support/node-server-process';

let server: NodeServerProcess | undefined;
let hub: FakeUpstream | undefined;
afterEach(async () => {
  await server?.stop();
  await hub?.close();
  server = hub = undefined;
});

describe('commands the app relays to a hub', () => {
  it('answers a hub session’s /se/files once, with nothing written after the answer', async () => {
    hub = await FakeUpstream.start();
    const listing = { value: { names: ['report.csv'], files: [] } };
    hub.respond = () => jsonAnswer(200, listing);
    server = startNodeServer({
      port: 0,
      host: '127.0.0.1',
      workers: 1,
      browsers: { chrome: { defaultVersion: '1.0', versions: { '1.0': { pools: ['hub'] } } } },
      pools: { hub: { kind: 'hub', url: `http://${hub.address}`, maxSessions: 1 } },
    });
    const url = await server.url;
    const json = { 'content-type': 'application/json; charset=utf-8' };
    const created = await fetch(`${url}/session`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(W3C_CHROME),
    });
    const { value } = (await created.json()) as { value: { sessionId: string } };

    for (let round = 0; round < 3; round++) {
      const answer = await fetch(`${url}/session/${value.sessionId}/se/files`);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual(listing);
    }
    expect(hub.commands().map((request) => `${request.method} ${request.path}`)).toEqual(
      Array(3).fill(`GET /session/${hub.sessionIds[0]}/se/files`),
    );
    // What the adapter would have written after the answer comes within the same turn; a command after it
    // is answered only once the first's handling has finished.
    await fetch(`${url}/status`);
    expect(server.stderr()).not.toContain('ERR_HTTP_HEADERS_SENT');
  });
});
