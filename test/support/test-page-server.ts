/**
 * A small site on 127.0.0.1 for browsers under test: a form, a script, a cookie, a link to a second window,
 * a file input, a page with a file input and a link to a download, and one that fetches and logs an error.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const PAGES: Record<string, string> = {
  '/': `<!doctype html><html><head><title>gridgate test page</title></head><body>
<h1 id="heading">Hello from 127.0.0.1</h1>
<form id="form" onsubmit="event.preventDefault(); document.getElementById('result').textContent = 'Hello, ' + document.getElementById('name').value;">
  <input id="name" name="name" type="text"><button id="greet" type="submit">Greet</button>
</form>
<p id="result"></p>
<a id="open-second" href="/second" target="_blank">second window</a>
</body></html>`,
  '/second':
    '<!doctype html><html><head><title>second page</title></head><body><p id="second">second</p></body></html>',
  '/upload':
    '<!doctype html><html><head><title>upload page</title></head><body><input id="file" type="file"></body></html>',
  // Two requests of its own (one found, one not) and a console error, then a title saying it is done.
  '/console-and-fetches': `<!doctype html><html><head><title>fetching</title></head><body><script>
console.error('checkout total was 41');
fetch('/second').then((found) => found.text())
  .then(() => fetch('/missing.json'))
  .then(() => { document.title = 'fetched'; });
</script></body></html>`,
  '/files': `<!doctype html><html><head><title>files</title></head><body>
<input id="upload" type="file">
<a id="download" href="/report.csv">report</a>
</body></html>`,
};

/** What /report.csv serves, as an attachment: a browser saves it as a download. */
export const DOWNLOAD_NAME = 'report.csv';
export const DOWNLOAD_CONTENT = 'name,answer\ngridgate,42\n';

export interface TestPageServer {
  url: string;
  close(): Promise<void>;
}

export async function startTestPageServer(): Promise<TestPageServer> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === `/${DOWNLOAD_NAME}`) {
      res.writeHead(200, {
        'content-type': 'text/csv',
        'content-disposition': `attachment; filename="${DOWNLOAD_NAME}"`,
      });
      res.end(DOWNLOAD_CONTENT);
      return;
    }
    const page = PAGES[path];
    if (!page) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'set-cookie': 'served-by=gridgate-test; Path=/',
    });
    res.end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
