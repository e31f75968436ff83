/**
 * Where `npm start` listens and what it says about it: loopback unless the config sets `host` (as
 * chromedriver; Selenium Grid listens everywhere), read from the kernel's socket table, never by
 * connecting to another address of this machine.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { type NodeServerProcess, startNodeServer } from '../support/node-server-process';
import { eventually } from '../support/until';

let server: NodeServerProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** The local addresses (hex, as /proc/net/tcp{,6} write them) of the sockets listening on `port`. */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((table) =>
    readFileSync(table, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // Fields: sl, local_address (ADDR:PORT), rem_address, st (0A = LISTEN), …
      .filter((fields) => fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A')
      .map((fields) => (fields[1] as string).split(':')[0] as string),
  );
}

async function started(config: Record<string, unknown>): Promise<{ port: number; stderr: string }> {
  server = startNodeServer(config);
  const port = Number(new URL(await server.url).port);
  await eventually(() => expect(server?.stderr()).toMatch(/gridgate: reachable/), 10_000);
  return { port, stderr: server.stderr() };
}

describe('the address npm start listens on', { timeout: 120_000 }, () => {
  it('is loopback with no host in the config, and the start-up says who can reach it and as whom', async () => {
    const { port, stderr } = await started({ port: 0 });
    expect(listeningAddresses(port)).toEqual(['0100007F']);
    expect(stderr).toContain(
      'gridgate: reachable from this machine only (listening on 127.0.0.1); no users file: everyone is the guest "guest", no password asked\n',
    );
    expect(server?.lines.find((line) => line.event === 'SERVER_STARTED')?.reach).toMatch(
      /^reachable from this machine only/,
    );
  });

  it('is every interface when the config says "0.0.0.0", and the start-up warns of it', async () => {
    const { port, stderr } = await started({ port: 0, host: '0.0.0.0' });
    expect(listeningAddresses(port)).toEqual(['00000000']);
    expect(stderr).toContain(
      'gridgate: reachable from every network this machine is on (listening on 0.0.0.0)',
    );
    // No publicUrl or allowedHosts: people opening the status page at the machine's name must hear why not.
    expect(stderr).toContain(
      '; web pages (the status page too) may use it only at localhost or an IP address: browsers at any other name are refused until publicUrl or allowedHosts names it (DNS rebinding)\n',
    );
  });
});
