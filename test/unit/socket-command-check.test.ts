/** What a local session's CDP and BiDi clients may send: commands naming host paths held to the session's folder. */
import { describe, expect, it } from 'vitest';
import type { HostPathContext } from '../../functions/core/host-path-rules';
import {
  SocketCommandCheck,
  type SocketProtocol,
  type Verdict,
} from '../../functions/core/socket-command-check';

const FOLDER = '/sessions/gridgate-session-1-2';
// Inside by name alone here; the adapter's real check resolves `..` and links (session-folder-bounds.test.ts).
const context: HostPathContext = {
  folder: FOLDER,
  downloads: `${FOLDER}/downloads`,
  inside: async (path) => path === FOLDER || path.startsWith(`${FOLDER}/`),
};

async function verdict(protocol: SocketProtocol, message: unknown): Promise<Verdict | 'relayed unparsed'> {
  const check = new SocketCommandCheck(protocol, context);
  const bytes = Buffer.from(typeof message === 'string' ? message : JSON.stringify(message));
  return check.mayCheck(bytes) ? check.decide(bytes) : 'relayed unparsed';
}

const answer = (outcome: Verdict | string) => JSON.parse((outcome as { answer: string }).answer);
const forwarded = (outcome: Verdict | string) => JSON.parse((outcome as { forward: string }).forward);

describe('CDP (se:cdp)', () => {
  it('relays a message that names no checked command without parsing it', async () => {
    expect(await verdict('cdp', { id: 1, method: 'Runtime.evaluate', params: { expression: '1' } })).toBe(
      'relayed unparsed',
    );
  });

  it('refuses a download folder outside the session with CDP’s error, on the command’s own session', async () => {
    const outcome = await verdict('cdp', {
      id: 7,
      sessionId: 'PAGE',
      method: 'Page.setDownloadBehavior',
      params: { behavior: 'allow', downloadPath: '/home/grid/.local/lib/python3/site-packages' },
    });
    expect(answer(outcome)).toEqual({
      id: 7,
      sessionId: 'PAGE',
      error: {
        code: -32000,
        message: `gridgate refuses Page.setDownloadBehavior: downloadPath "/home/grid/.local/lib/python3/site-packages" is outside this session's folder (${FOLDER})`,
      },
    });
  });

  it('relays a folder inside the session, and no folder at all (deny)', async () => {
    const inside = {
      id: 1,
      method: 'Browser.setDownloadBehavior',
      params: { behavior: 'allow', downloadPath: `${FOLDER}/x` },
    };
    expect(forwarded(await verdict('cdp', inside))).toEqual(inside);
    const deny = { id: 2, method: 'Browser.setDownloadBehavior', params: { behavior: 'deny' } };
    expect(forwarded(await verdict('cdp', deny))).toEqual(deny);
  });

  it('refuses a relative folder, which the browser would take from gridgate’s working directory', async () => {
    const outcome = await verdict('cdp', {
      id: 1,
      method: 'Browser.setDownloadBehavior',
      params: { behavior: 'allow', downloadPath: 'downloads' },
    });
    expect(answer(outcome).error.message).toMatch(/"downloads" is not an absolute path/);
  });

  it('gives Playwright’s own temporary download folder the session’s downloads folder instead', async () => {
    const outcome = await verdict('cdp', {
      id: 3,
      method: 'Browser.setDownloadBehavior',
      params: {
        behavior: 'allowAndName',
        downloadPath: '/tmp/playwright-artifacts-Ab12Cd',
        eventsEnabled: true,
      },
    });
    expect(forwarded(outcome).params.downloadPath).toBe(`${FOLDER}/downloads`);
  });

  it('reads a method spelled with \\u escapes as the browser does', async () => {
    const message = `{"id":4,"method":"Browser.setDownload\\u0042ehavior","params":{"behavior":"allow","downloadPath":"/etc"}}`;
    expect(answer(await verdict('cdp', message)).error.message).toMatch(
      /^gridgate refuses Browser\.setDownloadBehavior/,
    );
  });

  it('relays a checked message as it was checked: of duplicate keys, only the one checked reaches the browser', async () => {
    const refused = `{"id":5,"method":"Browser.setDownloadBehavior","params":{"downloadPath":"${FOLDER}/a","downloadPath":"/etc"}}`;
    expect(answer(await verdict('cdp', refused)).error.message).toMatch(/"\/etc" is outside/);
    const allowed = `{"id":6,"method":"Browser.setDownloadBehavior","params":{"downloadPath":"/etc","downloadPath":"${FOLDER}/a"}}`;
    expect((await verdict('cdp', allowed)) as Verdict).toEqual({
      forward: `{"id":6,"method":"Browser.setDownloadBehavior","params":{"downloadPath":"${FOLDER}/a"}}`,
    });
  });

  it('checks a command carried inside Target.sendMessageToTarget', async () => {
    const inner = { id: 1, method: 'DOM.setFileInputFiles', params: { files: ['/etc/passwd'], nodeId: 4 } };
    const outcome = await verdict('cdp', {
      id: 8,
      method: 'Target.sendMessageToTarget',
      params: { sessionId: 'S', message: JSON.stringify(inner) },
    });
    expect(answer(outcome)).toMatchObject({
      id: 8,
      error: { message: expect.stringMatching(/DOM\.setFileInputFiles: files "\/etc\/passwd"/) },
    });
  });

  it('holds uploads, drops, extensions and file: URLs to the session’s folder', async () => {
    const refused = [
      { method: 'DOM.setFileInputFiles', params: { files: [`${FOLDER}/uploads/a.txt`, '/etc/passwd'] } },
      {
        method: 'Input.dispatchDragEvent',
        params: {
          type: 'drop',
          x: 1,
          y: 1,
          data: { items: [], files: ['/etc/hosts'], dragOperationsMask: 1 },
        },
      },
      { method: 'Extensions.loadUnpacked', params: { path: '/home/grid/extension' } },
      {
        method: 'PWA.install',
        params: { manifestId: 'x', installUrlOrBundleUrl: 'file:///home/grid/app.swbn' },
      },
      { method: 'PWA.launchFilesInApp', params: { manifestId: 'x', files: ['file:///etc/passwd'] } },
      { method: 'Network.loadNetworkResource', params: { url: 'FILE:///etc/passwd', options: {} } },
    ];
    for (const [index, command] of refused.entries()) {
      expect(answer(await verdict('cdp', { id: index, ...command })).error.message, command.method).toMatch(
        new RegExp(`^gridgate refuses ${command.method.replace('.', '\\.')}: `),
      );
    }
    const relayed = [
      { method: 'DOM.setFileInputFiles', params: { files: [`${FOLDER}/uploads/upload-1/a.txt`] } },
      { method: 'Extensions.loadUnpacked', params: { path: `${FOLDER}/uploads/upload-2/extension` } },
      {
        method: 'Network.loadNetworkResource',
        params: { url: 'https://example.test/app.js.map', options: {} },
      },
      { method: 'Tracing.start', params: { traceConfig: { includedCategories: ['devtools.timeline'] } } },
    ];
    for (const [index, command] of relayed.entries()) {
      expect(forwarded(await verdict('cdp', { id: index, ...command })), command.method).toEqual({
        id: index,
        ...command,
      });
    }
  });

  it('refuses what would open a channel past this check, and a Perfetto config', async () => {
    for (const method of ['Target.exposeDevToolsProtocol', 'Target.openDevTools']) {
      expect(answer(await verdict('cdp', { id: 1, method, params: { targetId: 'T' } })).error.code).toBe(
        -32000,
      );
    }
    const perfetto = await verdict('cdp', {
      id: 2,
      method: 'Tracing.start',
      params: { perfettoConfig: 'AAAA' },
    });
    expect(answer(perfetto).error.message).toMatch(/perfettoConfig/);
  });

  it('refuses a message naming a checked command that is not JSON, as the browser might read it otherwise', async () => {
    expect(answer(await verdict('cdp', '{"id":1,"method":"Browser.setDownloadBehavior",'))).toEqual({
      error: { code: -32700, message: 'gridgate refuses a message that is not a JSON object' },
    });
  });
});

describe('BiDi (webSocketUrl)', () => {
  it('refuses browser.setDownloadBehavior outside the session with BiDi’s error', async () => {
    const outcome = await verdict('bidi', {
      id: 3,
      method: 'browser.setDownloadBehavior',
      params: { downloadBehavior: { type: 'allowed', destinationFolder: '/home/grid/.config/autostart' } },
    });
    expect(answer(outcome)).toEqual({
      type: 'error',
      id: 3,
      error: 'invalid argument',
      message: `gridgate refuses browser.setDownloadBehavior: downloadBehavior.destinationFolder "/home/grid/.config/autostart" is outside this session's folder (${FOLDER})`,
    });
  });

  it('relays denied and inside folders, and commands it does not check unparsed', async () => {
    const denied = {
      id: 1,
      method: 'browser.setDownloadBehavior',
      params: { downloadBehavior: { type: 'denied' } },
    };
    expect(forwarded(await verdict('bidi', denied))).toEqual(denied);
    const reset = { id: 2, method: 'browser.setDownloadBehavior', params: { downloadBehavior: null } };
    expect(forwarded(await verdict('bidi', reset))).toEqual(reset);
    expect(await verdict('bidi', { id: 3, method: 'browsingContext.getTree', params: {} })).toBe(
      'relayed unparsed',
    );
  });

  it('holds input.setFiles and webExtension.install paths to the session’s folder', async () => {
    const files = await verdict('bidi', {
      id: 1,
      method: 'input.setFiles',
      params: { context: 'C', element: {}, files: ['/etc/passwd'] },
    });
    expect(answer(files).message).toMatch(/^gridgate refuses input\.setFiles: files "\/etc\/passwd"/);
    const extension = await verdict('bidi', {
      id: 2,
      method: 'webExtension.install',
      params: { extensionData: { type: 'archivePath', path: '/tmp/x.crx' } },
    });
    expect(answer(extension).message).toMatch(/^gridgate refuses webExtension\.install/);
    const base64 = {
      id: 3,
      method: 'webExtension.install',
      params: { extensionData: { type: 'base64', value: 'UEsDBA==' } },
    };
    expect(forwarded(await verdict('bidi', base64))).toEqual(base64);
  });

  it('holds CDP carried by goog:cdp.sendCommand and cdp.sendCommand to the CDP rules', async () => {
    for (const method of ['goog:cdp.sendCommand', 'cdp.sendCommand']) {
      const outcome = await verdict('bidi', {
        id: 4,
        method,
        params: {
          method: 'Browser.setDownloadBehavior',
          params: { behavior: 'allow', downloadPath: '/etc' },
        },
      });
      expect(answer(outcome)).toMatchObject({ type: 'error', id: 4, error: 'invalid argument' });
    }
  });
});
