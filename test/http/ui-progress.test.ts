/**
 * What the status page shows of a session's progress through the whole app: the stage a new session's
 * creation has reached (from its slot in the store), and the commands a running one has had.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LaunchedBrowser, Launcher, LaunchRequest, LaunchStage } from '../../functions/core/ports';
import type { Overview, SessionDetail } from '../../functions/http/ui/ui-views';
import { type FakeGrid, jsonRequest, startFakeGrid, W3C_CHROME } from '../support/fake-grid';
import { type FakeLauncher, type FakeLauncherOptions, jsonAnswer } from '../support/fakes';
import { eventually } from '../support/until';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A launcher that reports the stages it is told to, each waiting until the test lets it go on. */
class SteppedLauncher implements Launcher {
  private readonly steps: { stage: LaunchStage; go: () => void }[] = [];
  private readonly waiting: ((step: { stage: LaunchStage; go: () => void }) => void)[] = [];

  constructor(
    private readonly inner: FakeLauncher,
    private readonly stages: LaunchStage[],
  ) {}

  async start(request: LaunchRequest): Promise<LaunchedBrowser> {
    for (const stage of this.stages) {
      request.onStage?.(stage);
      await new Promise<void>((go) => this.offer({ stage, go }));
    }
    return this.inner.start(request);
  }

  stop(handle: string): Promise<void> {
    return this.inner.stop(handle);
  }

  /** Waits until the launcher has reported its next stage; calling go() lets it continue. */
  next(): Promise<{ stage: LaunchStage; go: () => void }> {
    const step = this.steps.shift();
    return step ? Promise.resolve(step) : new Promise((resolve) => this.waiting.push(resolve));
  }

  private offer(step: { stage: LaunchStage; go: () => void }) {
    const waiter = this.waiting.shift();
    if (waiter) waiter(step);
    else this.steps.push(step);
  }
}

function grid(launcher: FakeLauncherOptions = {}): FakeGrid {
  const started = startFakeGrid({ launcher });
  cleanups.push(() => started.close());
  return started;
}

async function overview(g: FakeGrid): Promise<Overview> {
  const response = await g.app.request('/ui/api/overview');
  expect(response.status).toBe(200);
  return (await response.json()) as Overview;
}

const startingStage = async (g: FakeGrid) => (await overview(g)).starting[0]?.stage;

describe('the stage of a session being created', () => {
  it('follows the launcher’s stages on the starting session, then lists the session itself', async () => {
    const g = grid();
    const launcher = new SteppedLauncher(g.launcher, ['pull', 'driver']);
    g.deps.runtimes.local = { launcher };
    const created = g.app.request('/session', jsonRequest('POST', W3C_CHROME));

    const pull = await launcher.next();
    await eventually(async () => expect(await startingStage(g)).toBe('pull'));
    g.clock.advance(7000);
    expect((await overview(g)).starting[0]).toMatchObject({ user: 'guest', pool: 'local', stageMs: 7000 });
    pull.go();
    const driver = await launcher.next();
    await eventually(async () => expect(await startingStage(g)).toBe('driver'));
    driver.go();

    expect((await created).status).toBe(200);
    const page = await overview(g);
    expect(page.starting).toEqual([]);
    expect(page.sessions).toHaveLength(1);
  });

  it('marks the launch before the launcher reports anything, and the session while the browser opens it', async () => {
    // Set once the browser has the new-session request: the stage says 'session' a moment before that.
    let answer: (() => void) | undefined;
    const g = grid({
      newSession: async () => {
        await new Promise<void>((resolve) => {
          answer = resolve;
        });
        return jsonAnswer(200, {
          value: { sessionId: 'upstream-1', capabilities: { browserName: 'chrome' } },
        });
      },
    });
    const launcher = new SteppedLauncher(g.launcher, ['driver']);
    g.deps.runtimes.local = { launcher };
    const created = g.app.request('/session', jsonRequest('POST', W3C_CHROME));

    const driver = await launcher.next();
    expect((await g.sessions.slots())[0]?.stage).toMatch(/^(launch|driver)$/);
    await eventually(async () => expect(await startingStage(g)).toBe('driver'));
    driver.go();
    await eventually(async () => expect(await startingStage(g)).toBe('session'));
    await eventually(() => expect(answer !== undefined).toBe(true));
    answer?.();
    expect((await created).status).toBe(200);
  });

  it('shows a launch that reports no stage of its own as launching', async () => {
    const g = grid({ hold: true });
    const client = new AbortController();
    const created = g.app.request('/session', { ...jsonRequest('POST', W3C_CHROME), signal: client.signal });
    await eventually(async () => expect(await startingStage(g)).toBe('launch'));
    client.abort();
    await created;
  });
});

describe('the commands of a running session', () => {
  async function session(g: FakeGrid): Promise<{ id: string; key: string }> {
    const response = await g.app.request('/session', jsonRequest('POST', W3C_CHROME));
    const id = ((await response.json()) as { value: { sessionId: string } }).value.sessionId;
    const check = g.deps.tokens.verify(id, 'guest');
    if (!check.ok) throw new Error('not the guest’s session');
    return { id, key: check.claims.key };
  }

  it('counts the commands passed to the browser and shows the last one in the list and the event log', async () => {
    const g = grid();
    const { id, key } = await session(g);
    expect((await overview(g)).sessions[0]).toMatchObject({ key, commands: 0 });

    await g.app.request(`/session/${id}/url`, jsonRequest('POST', { url: 'about:blank' }));
    await g.app.request(`/wd/hub/session/${id}/element/el-1/click`, jsonRequest('POST', {}));
    g.clock.advance(2000);
    await g.app.request(`/session/${id}/title`);

    expect((await overview(g)).sessions[0]).toMatchObject({ key, commands: 3, lastCommand: 'GET /title' });
    const detail = await g.app.request(`/ui/api/sessions/${key}`);
    const { session: shown } = (await detail.json()) as { session: SessionDetail };
    expect(shown).toMatchObject({ commands: 3, lastCommand: 'GET /title' });
    expect(shown.events).toContainEqual({
      at: g.clock.now(),
      what: 'last command: GET /title (3 commands in all)',
    });
  });

  it('keeps the count in the ended session’s event log', async () => {
    const g = grid();
    const { id, key } = await session(g);
    await g.app.request(`/session/${id}/url`, jsonRequest('POST', { url: 'about:blank' }));
    expect((await g.app.request(`/session/${id}`, { method: 'DELETE' })).status).toBe(200);
    const { session: shown } = (await (await g.app.request(`/ui/api/sessions/${key}`)).json()) as {
      session: SessionDetail;
    };
    expect(shown).toMatchObject({ state: 'ended', commands: 1, lastCommand: 'POST /url' });
  });
});
