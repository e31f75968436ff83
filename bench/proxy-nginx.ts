/**
 * Debian's nginx in two roles, each its own instance on loopback with a generated config in a
 * temporary directory (pid, logs and temp paths inside it, so no root is needed):
 *   - the fake W3C upstream that answers at once (not Node, so the upstream is never what limits a path);
 *   - a plain reverse proxy in front of it, the "near zero cost" proxy gridgate is compared with.
 */
import { chmod, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, readyOrStopped, type ServerProcess, startServerProcess } from './proxy-processes';
import { track } from './teardown';

const NGINX = '/usr/sbin/nginx';
const READY_MS = 10_000;

/** The one session the fake upstream knows: every new session gets this ID. */
export const FAKE_SESSION_ID = 'fake';
/** What the fake upstream answers to every command. */
export const COMMAND_ANSWER = '{"value":"x"}';
/** The large response: GET /session/{id}/screenshot, a JSON document of this many bytes. */
export const LARGE_RESPONSE_BYTES = 20 * 1024 * 1024;

export interface Nginx {
  origin: string;
  process: ServerProcess;
}

// Selenium Grid refuses a JSON answer without "charset=utf-8" ("Content-Type header does not
// indicate utf-8 encoded json").
const commonHttp = (dir: string) => `
  access_log off;
  default_type "application/json; charset=utf-8";
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_requests 1000000;`;

const commonMain = (dir: string) => `
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }`;

/**
 * The fake W3C remote end: POST /session creates session "fake", GET /status says ready (Grid's
 * relay polls it), GET …/screenshot is the large response, DELETE ends the session, anything else
 * answers {"value":"x"}. The request body is read and discarded, as a browser would read it.
 */
function upstreamConfig(dir: string, port: number): string {
  const created = JSON.stringify({
    value: {
      sessionId: FAKE_SESSION_ID,
      capabilities: { browserName: 'chrome', browserVersion: '1.0', platformName: 'linux' },
    },
  });
  return `${commonMain(dir)}
http {${commonHttp(dir)}
  server {
    listen 127.0.0.1:${port};
    # Also under /wd/hub, where ggr sends everything.
    location ~ ^(/wd/hub)?/session$ { return 200 '${created}'; }
    location ~ ^(/wd/hub)?/status$ { return 200 '{"value":{"ready":true,"message":"fake upstream"}}'; }
    location ~ ^(/wd/hub)?/session/[^/]+$ { return 200 '{"value":null}'; }
    location ~ ^(/wd/hub)?/session/[^/]+/screenshot$ { root ${dir}; rewrite ^ /large.json break; }
    location / { return 200 '${COMMAND_ANSWER}'; }
  }
}
`;
}

/** A plain reverse proxy: keep-alive to the upstream, no buffering (as a streaming proxy is set up). */
function proxyConfig(dir: string, port: number, upstream: string): string {
  return `${commonMain(dir)}
http {${commonHttp(dir)}
  upstream fake { server ${upstream}; keepalive 32; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://fake;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # The upstream's own address as Host: chromedriver refuses any other (the fake upstream ignores it).
      proxy_set_header Host ${upstream};
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }
}
`;
}

/** Writes `{"value":"AAAA…"}` of exactly `bytes` bytes, in 1 MiB pieces. */
async function writeLargeJson(path: string, bytes: number): Promise<void> {
  const file = await open(path, 'w');
  try {
    const head = '{"value":"';
    const tail = '"}';
    await file.write(head);
    const piece = 'A'.repeat(1024 * 1024);
    let left = bytes - head.length - tail.length;
    while (left > 0) {
      const chunk = left >= piece.length ? piece : piece.slice(0, left);
      await file.write(chunk);
      left -= chunk.length;
    }
    await file.write(tail);
  } finally {
    await file.close();
  }
}

async function startNginx(name: string, config: (dir: string, port: number) => string): Promise<Nginx> {
  const dir = await mkdtemp(join(tmpdir(), `gridgate-bench-${name}-`));
  const untrack = track({ stop: () => rm(dir, { recursive: true, force: true }), kill: () => {} });
  // Run as root, nginx's workers drop to "nobody", and they serve the large response from here.
  await chmod(dir, 0o755);
  if (name === 'upstream') await writeLargeJson(join(dir, 'large.json'), LARGE_RESPONSE_BYTES);
  const port = await freePort();
  await writeFile(join(dir, 'nginx.conf'), config(dir, port));
  // -e: nginx opens its default error log before reading the config; point it at the temp dir too.
  const process = startServerProcess(
    NGINX,
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')],
    'SIGTERM',
  );
  const origin = `http://127.0.0.1:${port}`;
  await readyOrStopped(
    `nginx (${name})`,
    READY_MS,
    process,
    async () => (await fetch(`${origin}/status`)).ok,
    async () => {
      await rm(dir, { recursive: true, force: true });
      untrack();
    },
  );
  return { origin, process };
}

export const startFakeUpstream = (): Promise<Nginx> => startNginx('upstream', upstreamConfig);

export const startNginxProxy = (upstream: string): Promise<Nginx> =>
  startNginx('proxy', (dir, port) => proxyConfig(dir, port, upstream.replace(/^http:\/\//, '')));
