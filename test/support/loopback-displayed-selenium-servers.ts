/**
 * Browser "containers" for fake ECS tasks that have a video recorder beside them, laid out as docker-selenium's
 * standalone images run theirs (SE_START_XVFB): an X display (Xvfb) and the Selenium server standalone, whose
 * Chromium runs headful on that display, so that there is a screen to film. The display is the container's:
 * stopping the container ends the server, then the display. Xvfb picks a display number that is free on this
 * machine (-displayfd), so tasks of tests running side by side never share one. The task's pid is Xvfb's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { LAUNCHED_BY_ENV } from '../../functions/pools/local/chromedriver-launcher';
import { type ContainerHooks, killGroup, type LoopbackContainers } from './loopback-chromedrivers';
import { LoopbackSeleniumServers } from './loopback-selenium-servers';
import { SCREEN } from './loopback-vnc-browsers';
import { processGroupAlive } from './processes';
import { until } from './until';

interface DisplayedServer {
  xvfb: ChildProcess;
  /** The X display (`:N`) once Xvfb takes clients. */
  display: Promise<string>;
  /** Settles once Xvfb and the server have exited. */
  gone: Promise<void>;
  /** Set by stop: a server not started yet is not started. */
  stopping: boolean;
}

export class LoopbackDisplayedSeleniumServers implements LoopbackContainers {
  private readonly displayed = new Map<string, DisplayedServer>();
  private readonly servers: LoopbackSeleniumServers;

  constructor(port: number) {
    this.servers = new LoopbackSeleniumServers(port);
  }

  /** Starts the display, then the Selenium server on it; either ending ends the container. */
  start(
    name: string,
    ip: string,
    hooks: ContainerHooks = {},
    environment: Record<string, string> = {},
  ): { pid?: number; gone: Promise<void> } {
    let ended = false;
    const end = (why: string) => {
      if (ended) return;
      ended = true;
      this.stop(name).then(
        () => hooks.onExit?.(why),
        (error: Error) => hooks.onExit?.(`${why}; its other processes did not stop: ${error.message}`),
      );
    };
    const screen = `${SCREEN.width}x${SCREEN.height}x${SCREEN.depth}`;
    const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', screen, '-nolisten', 'tcp'], {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      env: { ...process.env, [LAUNCHED_BY_ENV]: String(process.pid) },
    });
    createInterface({ input: xvfb.stderr as Readable }).on('line', (line) => hooks.onLine?.(line));
    xvfb.once('exit', (code, signal) => end(`Xvfb exited (${signal ?? `code ${code}`})`));
    xvfb.once('error', (error) => end(`Xvfb: ${error.message}`));
    const display = firstLine(xvfb.stdio[3] as Readable).then((line) => `:${line.trim()}`);
    const server = display.then((shown) => {
      if (displayed.stopping) throw new Error('stopped before its display started');
      const onExit = (why: string) => end(`the Selenium server exited (${why})`);
      return this.servers.start(name, ip, { onExit, ...onLine(hooks) }, { ...environment, DISPLAY: shown });
    });
    display.catch((error: Error) => end(`the display did not start: ${error.message}`));
    const displayed: DisplayedServer = { xvfb, display, gone: Promise.resolve(), stopping: false };
    displayed.gone = Promise.all([
      exitOf(xvfb),
      server.then(
        (started) => started.gone,
        () => {},
      ),
    ]).then(() => {});
    this.displayed.set(name, displayed);
    return { pid: xvfb.pid, gone: displayed.gone };
  }

  listening(name: string): boolean {
    return this.servers.listening(name);
  }

  /** The container's X display, once it takes clients. */
  display(name: string): Promise<string> {
    const displayed = this.displayed.get(name);
    if (!displayed) return Promise.reject(new Error(`no container ${name}`));
    return displayed.display;
  }

  /** Ends the server (and its Chromium), then the display with SIGTERM so that it removes its socket. */
  async stop(name: string): Promise<void> {
    const displayed = this.displayed.get(name);
    if (!displayed) return;
    displayed.stopping = true;
    await this.servers.stop(name);
    const pid = displayed.xvfb.pid;
    if (pid !== undefined) {
      killGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), 2000);
      await exitOf(displayed.xvfb);
      clearTimeout(timer);
      await until(() => !processGroupAlive(pid), `the display's processes (group ${pid}) are gone`, {
        intervalMs: 20,
      });
    }
    await displayed.gone;
  }
}

function onLine(hooks: ContainerHooks): ContainerHooks {
  return hooks.onLine ? { onLine: hooks.onLine } : {};
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined)
    return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** The first line of `stream`; rejects if it ends first. */
function firstLine(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: stream });
    lines.once('line', resolve);
    lines.once('close', () => reject(new Error('the output ended before its first line')));
  });
}
