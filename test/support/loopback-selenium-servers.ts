/**
 * "Containers" for fake orchestrators that run what a docker-selenium image runs: a Selenium server
 * standalone (the project's jar, Java 17), which serves Selenium Grid 4's own endpoints (/se/file,
 * /se/files) as the real browser tasks do. Each listens on a loopback IP of its own (127.0.0.x) at the
 * container port, in its own process group (so stopping it stops its chromedriver and Chromium), marked
 * with LAUNCHED_BY_ENV like the chromedriver containers.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { LAUNCHED_BY_ENV } from '../../functions/pools/local/chromedriver-launcher';
import {
  type ContainerHooks,
  killGroup,
  type LoopbackContainer,
  watchContainer,
} from './loopback-chromedrivers';
import { processGroupAlive } from './processes';
import { SELENIUM_JAR, seleniumNodeConfig } from './selenium-grid';
import { until } from './until';

const STARTED = /Started Selenium Standalone/;

export class LoopbackSeleniumServers {
  readonly containers = new Map<string, LoopbackContainer & { ready: boolean }>();

  constructor(private readonly port: number) {}

  /**
   * Starts a Selenium server for `name` on ip:port, with `environment` added to its own; with a DISPLAY there
   * (an X display such as `:3`), its Chromium runs headful on it, as in a docker-selenium node whose Xvfb a
   * recorder films.
   */
  start(
    name: string,
    ip: string,
    { onExit = () => {}, onLine = () => {} }: ContainerHooks = {},
    environment: Record<string, string> = {},
  ): LoopbackContainer {
    const dir = mkdtempSync(join(tmpdir(), 'gridgate-fake-task-'));
    // One session per task, as gridgate's task definition sets (SE_NODE_MAX_SESSIONS=1); managed downloads
    // on, as its SE_NODE_ENABLE_MANAGED_DOWNLOADS=true turns them on in docker-selenium.
    writeFileSync(
      join(dir, 'node.toml'),
      seleniumNodeConfig(1, undefined, { headless: environment.DISPLAY === undefined }).join('\n'),
    );
    const child = spawn(
      'java',
      ['-jar', SELENIUM_JAR, 'standalone', '--host', ip, '--port', String(this.port)].concat([
        '--selenium-manager',
        'false',
        '--config',
        join(dir, 'node.toml'),
      ]),
      {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          ...environment,
          [LAUNCHED_BY_ENV]: String(process.pid),
        },
      },
    );
    const container = Object.assign(
      watchContainer(child, ip, onExit, () => rmSync(dir, { recursive: true, force: true })),
      { ready: false },
    );
    for (const output of [child.stdout, child.stderr]) {
      createInterface({ input: output as NodeJS.ReadableStream }).on('line', (line) => {
        if (STARTED.test(line)) container.ready = true;
        onLine(line);
      });
    }
    this.containers.set(name, container);
    return container;
  }

  listening(name: string): boolean {
    return this.containers.get(name)?.ready === true;
  }

  /** Ends the server and every browser it started (the whole process group), answering once they are gone. */
  async stop(name: string): Promise<void> {
    const container = this.containers.get(name);
    const pid = container?.pid;
    if (!container || pid === undefined) return;
    killGroup(pid, 'SIGKILL');
    await container.gone;
    // The JVM is reaped first; its chromedriver and Chromium may take a moment longer.
    await until(() => !processGroupAlive(pid), `the processes of group ${pid} are gone`, { intervalMs: 20 });
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.containers.keys()].map((name) => this.stop(name)));
  }
}
