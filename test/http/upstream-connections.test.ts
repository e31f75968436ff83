/** How many commands gridgate's upstream client has in flight at once: to a browser, and to a hub. */
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamAgent } from '../../functions/webdriver-client/upstream-client';
import { FakeUpstream, jsonAnswer } from '../support/fakes';
import { until } from '../support/until';

let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
});

/**
 * Sends 10 commands at once and counts those the upstream holds before it answers any, once `awaited`
 * have come and a moment more has passed.
 */
async function inFlight(isHub: boolean, awaited: number): Promise<number> {
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
  await until(() => server.requests.length >= awaited, `${awaited} requests are in flight`);
  // A fixed window on purpose: a connection beyond the limit would deliver one more request in it.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const held = server.requests.length;
  release();
  await Promise.all(commands);
  await agent.close();
  return held;
}

describe('upstream connections', () => {
  it('keeps a browser to 4 at once (chromedriver listens with a backlog of 5)', async () => {
    expect(await inFlight(false, 4)).toBe(4);
  });

  it('lets a hub, which carries every session of its pool, have all 10 at once', async () => {
    expect(await inFlight(true, 10)).toBe(10);
  });
});
