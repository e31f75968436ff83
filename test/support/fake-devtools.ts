/**
 * A browser's DevTools endpoint on 127.0.0.1, as far as recording its screen uses it (screencast-recorder.ts):
 * `GET /json/version` with the browser's WebSocket address, and over that socket the Target and Page commands
 * the recorder sends, answered in Chromium's shapes (one page; a screenshot is a JPEG; an unknown method is
 * Chromium's -32601 error). With `attach: 'never'` the page's attachment is never answered, as a browser whose
 * first tab is still settling, or whose renderer is stuck, leaves it: the recorder then never sees the screen.
 */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

export interface FakeDevtools {
  /** host:port, as a session's `goog:chromeOptions.debuggerAddress` gives it. */
  address: string;
  /** The methods asked so far, in order. */
  asked: string[];
  close(): Promise<void>;
}

const PAGE = { targetId: 'PAGE-1', type: 'page', title: 'about:blank', url: 'about:blank', attached: false };

/** What the browser's screen shows: one JPEG frame, as Page.captureScreenshot sends it. */
const screen = () =>
  execFileSync('/usr/bin/ffmpeg', [
    ...[
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=640x360',
      '-frames:v',
      '1',
      '-f',
      'mjpeg',
      'pipe:1',
    ],
  ]).toString('base64');

export async function startFakeDevtools(options: { attach: 'at once' | 'never' }): Promise<FakeDevtools> {
  const asked: string[] = [];
  const frame = screen();
  const http = createServer((request, response) => {
    if (request.url !== '/json/version') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        Browser: 'HeadlessChrome/156.0.7000.1',
        webSocketDebuggerUrl: `ws://${address}/devtools/browser/fake`,
      }),
    );
  });
  const sockets = new WebSocketServer({ server: http, path: '/devtools/browser/fake' });
  sockets.on('connection', (socket) => {
    socket.on('message', (data) => {
      const { id, method } = JSON.parse(String(data)) as { id: number; method: string };
      asked.push(method);
      const answer = (result: object) => socket.send(JSON.stringify({ id, result }));
      if (method === 'Target.setDiscoverTargets') answer({});
      else if (method === 'Target.getTargets') answer({ targetInfos: [PAGE] });
      else if (method === 'Target.attachToTarget') {
        if (options.attach === 'at once') answer({ sessionId: 'SESSION-1' });
      } else if (method === 'Page.startScreencast' || method === 'Page.screencastFrameAck') answer({});
      else if (method === 'Page.captureScreenshot') answer({ data: frame });
      else socket.send(JSON.stringify({ id, error: { code: -32601, message: `'${method}' wasn't found` } }));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = `127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    address,
    asked,
    close: async () => {
      for (const socket of sockets.clients) socket.terminate();
      await new Promise((resolve) => sockets.close(resolve));
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
