/** How many commands gridgate's upstream client has in flight at once: to a browser, and to a hub. */
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamAgent } from '../../functions/http/upstream-client';
import { FakeUpstream, jsonAnswer } from '../support/fakes';

let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
});

/** Sends 10 commands at once and counts those the upstream holds before it answers any. */
async function inFlight(isHub: boolean): Promise<number> {
  const server = await FakeUpstream.start();
  upstream = server;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  server.respond = async () => {
    await gate;
    return jsonAnswer(200, { value: 'x' });
  };
  const origin = `http://${server.address}`;
  const agent = createUpstreamAgent((asked) => isHub && asked === origin);
  const commands = Array.from({ length: 10 }, (_, i) =>
    agent
      .request({ origin, path: `/session/s${i}/title`, method: 'GET' })
      .then((answer) => answer.body.text()),
  );
  // Long enough for every connection the agent will open to have delivered its request.
  const deadline = Date.now() + 2_000;
  while (server.requests.length < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const held = server.requests.length;
  release();
  await Promise.all(commands);
  await agent.close();
  return held;
}

describe('upstream connections', () => {
  it('keeps a browser to 4 at once (chromedriver listens with a backlog of 5)', async () => {
    expect(await inFlight(false)).toBe(4);
  });

  it('lets a hub, which carries every session of its pool, have all 10 at once', async () => {
    expect(await inFlight(true)).toBe(10);
  });
});
