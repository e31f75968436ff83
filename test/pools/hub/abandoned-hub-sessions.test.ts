import { describe, expect, it } from 'vitest';
import { abandonedSessions } from '../../../functions/pools/hub/abandoned-hub-sessions';

const keys = new Set(['k1', 'k2']);

describe("a hub's sessions whose creation was abandoned", () => {
  it('are the sessions in Selenium Grid 4 /status asked for under one of the keys', () => {
    const status = {
      value: {
        ready: true,
        nodes: [
          {
            slots: [
              { session: { sessionId: 'a', capabilities: { 'gridgate:creation': 'k1' } } },
              { session: { sessionId: 'b', capabilities: { 'gridgate:creation': 'live-key' } } },
              { session: { sessionId: 'c', capabilities: { browserName: 'chrome' } } },
              { session: null },
            ],
          },
          { slots: [{ session: { sessionId: 'd', capabilities: { 'gridgate:creation': 'k2' } } }] },
        ],
      },
    };
    expect(abandonedSessions(status, keys)).toEqual(
      new Map([
        ['a', 'k1'],
        ['d', 'k2'],
      ]),
    );
  });

  it("are none in a status that lists no sessions (Selenoid's, ggr's, a W3C one) or is not JSON of that shape", () => {
    for (const status of [
      { value: { ready: true, message: 'ready' } },
      {
        total: 5,
        used: 1,
        browsers: { chrome: { '119.0': { user: { count: 1, sessions: [{ id: 'x' }] } } } },
      },
      {
        value: {
          nodes: [{ slots: [{ session: { sessionId: 7, capabilities: { 'gridgate:creation': 'k1' } } }] }],
        },
      },
      null,
      'ready',
    ]) {
      expect(abandonedSessions(status, keys)).toEqual(new Map());
    }
  });
});
