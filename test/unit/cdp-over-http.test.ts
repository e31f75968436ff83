/** CDP commands over chromedriver's command path: which paths carry one, and what becomes of their bodies. */
import { describe, expect, it } from 'vitest';
import { carriesCdpCommand, checkCdpCommandBody } from '../../functions/core/cdp-over-http';
import type { HostPathContext } from '../../functions/core/host-path-rules';

const FOLDER = '/sessions/gridgate-session-1-2';
// Inside by name alone here; the adapter's real check resolves `..` and links (session-folder-bounds.test.ts).
const context: HostPathContext = {
  folder: FOLDER,
  downloads: `${FOLDER}/downloads`,
  inside: async (path) => path === FOLDER || path.startsWith(`${FOLDER}/`),
};

const check = (body: unknown) =>
  checkCdpCommandBody(typeof body === 'string' ? body : JSON.stringify(body), context);

describe('carriesCdpCommand', () => {
  it('names the four paths chromedriver runs a CDP command on', () => {
    for (const rest of [
      '/goog/cdp/execute',
      '/chromium/send_command',
      '/chromium/send_command_and_get_result',
      '/chromium/send_command_from_websocket',
    ]) {
      expect(carriesCdpCommand(rest)).toBe(true);
    }
  });

  it('leaves every other command, and spellings chromedriver does not run, to stream unread', () => {
    // chromedriver 156 answers `unknown command` to each of these spellings (tried), so none reaches the browser.
    for (const rest of [
      '/url',
      '/goog/cdp/executeAsync',
      '/GOOG/cdp/execute',
      '/goog/cdp/execute/',
      '/goog/cdp/%65xecute',
      '',
    ]) {
      expect(carriesCdpCommand(rest)).toBe(false);
    }
  });
});

describe('checkCdpCommandBody', () => {
  it('refuses a download folder outside the session, naming the method and why', async () => {
    expect(
      await check({
        cmd: 'Browser.setDownloadBehavior',
        params: { behavior: 'allow', downloadPath: '/home/grid' },
      }),
    ).toEqual({
      refusal: `gridgate refuses Browser.setDownloadBehavior: downloadPath "/home/grid" is outside this session's folder (${FOLDER})`,
    });
  });

  it('forwards a harmless command, and one inside the folder, as parsed and written again', async () => {
    expect(await check('{"cmd": "Browser.getVersion", "params": {}}')).toEqual({
      forward: '{"cmd":"Browser.getVersion","params":{}}',
    });
    const inside = {
      cmd: 'Page.setDownloadBehavior',
      params: { behavior: 'allow', downloadPath: `${FOLDER}/downloads` },
    };
    expect(await check(inside)).toEqual({ forward: JSON.stringify(inside) });
  });

  it('sends the body as checked: Playwright’s own folder becomes the session’s downloads', async () => {
    const verdict = await check({
      cmd: 'Browser.setDownloadBehavior',
      params: { behavior: 'allow', downloadPath: '/tmp/playwright-artifacts-AbC123' },
    });
    expect(JSON.parse((verdict as { forward: string }).forward).params.downloadPath).toBe(
      `${FOLDER}/downloads`,
    );
  });

  it('checks a command nested in Target.sendMessageToTarget, and a duplicate cmd as the browser reads it', async () => {
    const nested = {
      cmd: 'Target.sendMessageToTarget',
      params: {
        message: JSON.stringify({
          id: 1,
          method: 'Browser.setDownloadBehavior',
          params: { behavior: 'allow', downloadPath: '/etc' },
        }),
      },
    };
    expect(await check(nested)).toEqual({
      refusal: expect.stringMatching(/^gridgate refuses Browser\.setDownloadBehavior/),
    });
    // JSON.parse keeps the last of two keys; the body is sent written again, so chromedriver reads that one too.
    const duplicate =
      '{"cmd": "Browser.getVersion", "cmd": "Browser.setDownloadBehavior", "params": {"behavior": "allow", "downloadPath": "/etc"}}';
    expect(await check(duplicate)).toEqual({
      refusal: expect.stringMatching(/^gridgate refuses Browser\.setDownloadBehavior/),
    });
  });

  it('checks a CDP message, send_command_from_websocket’s body, by its method', async () => {
    const message = {
      id: -1,
      method: 'Browser.setDownloadBehavior',
      params: { behavior: 'allow', downloadPath: '/etc' },
    };
    expect(await check(message)).toEqual({
      refusal: expect.stringMatching(/^gridgate refuses Browser\.setDownloadBehavior: downloadPath "\/etc"/),
    });
    expect(await check({ id: -2, method: 'Browser.getVersion', params: {} })).toEqual({
      forward: '{"id":-2,"method":"Browser.getVersion","params":{}}',
    });
  });

  it('refuses a body that is not a JSON object', async () => {
    expect(await check('{"cmd": ')).toEqual({
      refusal: 'gridgate refuses a CDP command whose body is not JSON',
    });
    expect(await check([1])).toEqual({
      refusal: 'gridgate refuses a CDP command whose body is not a JSON object',
    });
  });
});
