/** The `npm start` entry as a user runs it: config validation, a session, and SIGTERM ending every browser. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function startServer(config: unknown) {
  const dir = mkdtempSync(join(tmpdir(), 'gridgate-test-'));
  const file = join(dir, 'gridgate.json');
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'functions/entry/node-server.ts', '--config', file],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  const events: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const started = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const event = JSON.parse(line) as Record<string, unknown>;
      events.push(event);
      if (event.event === 'SERVER_STARTED') resolve(event.url as string);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  started.catch(() => undefined); // awaited only by the tests that expect a start
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, started, exited, events, stderr: () => stderr };
}

describe('the Node server entry', () => {
  it('refuses to start with an invalid config file and names every bad key', async () => {
    const server = startServer({ port: 'x', timeouts: { idle: '5 minutes' }, colour: 'green' });
    expect(await server.exited).toBe(1);
    expect(server.stderr()).toContain('port:');
    expect(server.stderr()).toContain('timeouts.idle:');
    expect(server.stderr()).toContain('Unrecognized key: "colour"');
  });

  it('ends every browser and removes its profile when it receives SIGTERM', async () => {
    const server = startServer({ port: 0, host: '127.0.0.1' });
    const url = await server.started;
    const response = await request(`${url}/wd/hub/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }),
    });
    expect(response.statusCode).toBe(200);
    const { value } = (await response.body.json()) as {
      value: { capabilities: { chrome: { userDataDir: string } } };
    };
    const profile = value.capabilities.chrome.userDataDir;
    expect(pgrep(profile)).not.toBe('');

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(pgrep(profile)).toBe('');
    expect(existsSync(profile)).toBe(false);
    expect(server.events.map((event) => event.event)).toEqual(
      expect.arrayContaining(['SESSION_CREATED', 'SERVER_STOPPING', 'SESSION_ENDED', 'SERVER_STOPPED']),
    );
  });
});

function pgrep(pattern: string): string {
  try {
    return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}
