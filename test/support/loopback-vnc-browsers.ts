/**
 * "Containers" for fake orchestrators laid out as docker-selenium's node images run them: an X display
 * (Xvfb), the browser headful on it (chromedriver, whose Chromium inherits the display), x11vnc sharing
 * that display behind a VNC password, and websockify serving noVNC's files and its WebSocket on the VNC
 * port. WebDriver answers at the task's loopback IP on the container port (as the chromedriver containers'
 * does), noVNC at the same IP on the VNC port. Every process has a process group of its own and
 * LAUNCHED_BY_ENV in its environment (the suite's leftover check counts them), and is killed by its pid
 * when the task stops.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { LAUNCHED_BY_ENV } from '../../functions/pools/local/chromedriver-launcher';
import {
  type ContainerHooks,
  killGroup,
  LoopbackChromedrivers,
  type LoopbackContainer,
  type LoopbackContainers,
} from './loopback-chromedrivers';
import { freePort, processGroupAlive } from './processes';
import { until } from './until';

/** Debian's noVNC (package novnc), which websockify serves as docker-selenium's images serve theirs. */
const NOVNC_FILES = '/usr/share/novnc';
/** The display's size and depth: docker-selenium's SE_SCREEN_WIDTH, SE_SCREEN_HEIGHT and SE_SCREEN_DEPTH. */
export const SCREEN = { width: 1360, height: 1020, depth: 24 };

/** What the tasks' VNC serves: the pool's vncPort and vncPassword. */
export interface VncSettings {
  port: number;
  password: string;
}

interface Desktop {
  /** Xvfb, then x11vnc and websockify as they start. */
  processes: ChildProcess[];
  /** chromedriver (and the Chromium it starts), once the display's other parts run. */
  browser?: LoopbackContainer;
  ready: boolean;
  stopping: boolean;
  /** Settles once every process it started has exited. */
  gone: Promise<void>;
}

export class LoopbackVncBrowsers implements LoopbackContainers {
  private readonly desktops = new Map<string, Desktop>();
  private readonly browsers: LoopbackChromedrivers;

  constructor(
    port: number,
    private readonly vnc: VncSettings,
    chromedriver?: string,
  ) {
    this.browsers = new LoopbackChromedrivers(port, chromedriver);
  }

  /** Starts the display, then what shows and serves it, then the browser on it; the task's pid is Xvfb's. */
  start(name: string, ip: string, hooks: ContainerHooks = {}): { pid?: number; gone: Promise<void> } {
    const onLine = hooks.onLine ?? (() => {});
    let ended = false;
    // Any of its processes ending ends the task, as an essential container's exit does.
    const end = (why: string) => {
      if (ended) return;
      ended = true;
      this.stop(name).then(
        () => hooks.onExit?.(why),
        (error: Error) => hooks.onExit?.(`${why}; its other processes did not stop: ${error.message}`),
      );
    };
    // -displayfd: Xvfb picks a free display and writes its number once it takes clients.
    const xvfb = this.spawn(
      'Xvfb',
      [
        '-displayfd',
        '3',
        '-screen',
        '0',
        `${SCREEN.width}x${SCREEN.height}x${SCREEN.depth}`,
        '-nolisten',
        'tcp',
      ],
      onLine,
      end,
      { extraFd: true },
    );
    const desktop: Desktop = { processes: [xvfb], ready: false, stopping: false, gone: Promise.resolve() };
    this.desktops.set(name, desktop);
    const started = this.startOnDisplay(name, ip, desktop, xvfb, onLine, end).catch((error: Error) =>
      end(`the desktop did not start: ${error.message}`),
    );
    desktop.gone = started
      .then(() => Promise.all([...desktop.processes.map(exitOf), desktop.browser?.gone]))
      .then(() => {});
    return { pid: xvfb.pid, gone: desktop.gone };
  }

  listening(name: string): boolean {
    return this.desktops.get(name)?.ready === true && this.browsers.listening(name);
  }

  /** Ends the browser, x11vnc and websockify, then the display, each by its pid; answers once all are gone. */
  async stop(name: string): Promise<void> {
    const desktop = this.desktops.get(name);
    if (!desktop) return;
    desktop.stopping = true;
    const [xvfb, ...clients] = desktop.processes;
    await Promise.all([this.browsers.stop(name), ...clients.map(endProcess)]);
    // The display last, with SIGTERM, so that it removes its lock file and socket.
    if (xvfb) await endProcess(xvfb);
    await desktop.gone;
  }

  private async startOnDisplay(
    name: string,
    ip: string,
    desktop: Desktop,
    xvfb: ChildProcess,
    onLine: (line: string) => void,
    end: (why: string) => void,
  ): Promise<void> {
    const display = `:${(await firstLine(xvfb.stdio[3] as Readable)).trim()}`;
    const rfbPort = await freePort();
    if (desktop.stopping) return;
    // As docker-selenium's start-vnc.sh runs it: the whole display, shared, kept across clients; on the
    // task's own loopback (its "localhost"), behind the password.
    const vncArgs = ['-display', display, '-rfbport', String(rfbPort), '-localhost', '-forever', '-shared'];
    const x11vnc = this.spawn('x11vnc', [...vncArgs, '-passwd', this.vnc.password], onLine, end);
    desktop.processes.push(x11vnc);
    // x11vnc says PORT=… on stdout once it listens.
    await lineMatching(x11vnc.stdout as Readable, /^PORT=\d+/, onLine);
    if (desktop.stopping) return;
    // docker-selenium's noVNC: websockify with noVNC's files as its web root, relaying to x11vnc.
    const websockify = this.spawn(
      'websockify',
      ['--web', NOVNC_FILES, `${ip}:${this.vnc.port}`, `127.0.0.1:${rfbPort}`],
      onLine,
      end,
    );
    desktop.processes.push(websockify);
    desktop.browser = this.browsers.start(name, ip, { onExit: end, onLine }, { DISPLAY: display });
    await until(() => desktop.stopping || accepts(ip, this.vnc.port), `websockify listens on ${ip}`, {
      timeoutMs: 15_000,
    });
    desktop.ready = !desktop.stopping;
  }

  private spawn(
    command: string,
    args: string[],
    onLine: (line: string) => void,
    end: (why: string) => void,
    { extraFd = false } = {},
  ): ChildProcess {
    const child = spawn(command, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...(extraFd ? (['pipe'] as const) : [])],
      env: { ...process.env, [LAUNCHED_BY_ENV]: String(process.pid) },
    });
    // Read whatever it prints (its log), or a chatty one (x11vnc) blocks once the pipe is full.
    createInterface({ input: child.stderr as Readable }).on('line', onLine);
    if (command !== 'x11vnc') createInterface({ input: child.stdout as Readable }).on('line', onLine);
    child.once('exit', (code, signal) => end(`${command} exited (${signal ?? `code ${code}`})`));
    child.once('error', (error) => end(`${command}: ${error.message}`));
    return child;
  }
}

/** SIGTERM to the process's group, SIGKILL if it lingers; resolves once no process of the group is left. */
async function endProcess(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  killGroup(pid, 'SIGTERM');
  const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), 2000);
  await exitOf(child);
  clearTimeout(timer);
  killGroup(pid, 'SIGKILL');
  await until(() => !processGroupAlive(pid), `the processes of group ${pid} are gone`, { intervalMs: 20 });
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined)
    return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function firstLine(stream: Readable): Promise<string> {
  return lineMatching(stream, /./, () => {});
}

/** The first line of `stream` that matches; every line also goes to `onLine`. Rejects if it ends first. */
function lineMatching(stream: Readable, pattern: RegExp, onLine: (line: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: stream });
    lines.on('line', (line) => {
      onLine(line);
      if (pattern.test(line)) resolve(line);
    });
    lines.once('close', () => reject(new Error(`the output ended before a line matching ${pattern}`)));
  });
}

/** Whether something takes TCP connections at ip:port. */
function accepts(ip: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, ip);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
