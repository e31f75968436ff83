/**
 * "Containers" for fake orchestrators: each is a real chromedriver (and the Chromium it starts) reached on
 * a loopback IP of its own (127.0.0.x) at the container port, forwarded to chromedriver's own port. Marked
 * with LAUNCHED_BY_ENV so the suite's leftover check counts any left behind (and others' sweeps spare them).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { LAUNCHED_BY_ENV } from '../../functions/pools/local/chromedriver-launcher';
import { processGroupAlive } from './processes';
import { until } from './until';

const STARTED = /ChromeDriver was started successfully on port (\d+)/;
/**
 * chromedriver ($0) with --port=0, started again when it exits at once with code 1: given port 0 it draws a port
 * on one address family and exits ("IPv6 port not available. Exiting...") when another process holds that
 * number on the other, which a container's own network never has. The shell leads the process group, so the
 * container's pid, its group and its exit code are as before.
 */
const UNTIL_A_PORT_HOLDS = `tries=0
while :; do
  started=$(date +%s)
  "$0" --port=0
  code=$?
  tries=$((tries + 1))
  if [ "$code" -eq 1 ] && [ $(($(date +%s) - started)) -lt 2 ] && [ "$tries" -lt 5 ]; then continue; fi
  exit "$code"
done`;

export interface LoopbackContainer {
  ip: string;
  pid?: number;
  child: ChildProcess;
  forwarder?: Server;
  sockets: Set<Socket>;
  /** Settles when chromedriver has exited and the forwarder is closed. */
  gone: Promise<void>;
  exited: boolean;
}

/** What hears from a container: why it ended, and each line it prints (its log, as awslogs would send it). */
export interface ContainerHooks {
  onExit?: (why: string) => void;
  onLine?: (line: string) => void;
}

/** What a fake orchestrator runs its tasks' containers with. */
export interface LoopbackContainers {
  /**
   * Starts the container `name` at `ip`; `pid` leads the process group of its first process. `environment`:
   * what the task's container override adds to its definition's (API_ContainerOverride, environment).
   */
  start(
    name: string,
    ip: string,
    hooks?: ContainerHooks,
    environment?: Record<string, string>,
  ): { pid?: number; gone: Promise<void> };
  /** Whether it serves yet (the task may be RUNNING). */
  listening(name: string): boolean;
  /** Ends its processes, answering once they are gone. */
  stop(name: string): Promise<void>;
}

export class LoopbackChromedrivers implements LoopbackContainers {
  readonly containers = new Map<string, LoopbackContainer>();

  constructor(
    private readonly port: number,
    private readonly chromedriver = '/usr/bin/chromedriver',
  ) {}

  /** Starts chromedriver for `name`, listening on ip:port once it is up; `env` adds to its environment. */
  start(
    name: string,
    ip: string,
    { onExit = () => {}, onLine = () => {} }: ContainerHooks = {},
    env: Record<string, string> = {},
  ): LoopbackContainer {
    const child = spawn('sh', ['-c', UNTIL_A_PORT_HOLDS, this.chromedriver], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env, [LAUNCHED_BY_ENV]: String(process.pid) },
    });
    createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', onLine);
    const container = watchContainer(child, ip, onExit, () => {
      container.forwarder?.close();
      for (const socket of container.sockets) socket.destroy();
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      onLine(line);
      const driverPort = STARTED.exec(line)?.[1];
      if (!driverPort || container.exited) return;
      container.forwarder = createServer((socket) => forward(container, Number(driverPort), socket));
      // A port the container cannot bind ends it, as a real container that fails to listen would.
      container.forwarder.once('error', () => killGroup(child.pid as number, 'SIGKILL'));
      container.forwarder.listen(this.port, ip);
    });
    this.containers.set(name, container);
    return container;
  }

  listening(name: string): boolean {
    return this.containers.get(name)?.forwarder?.listening === true;
  }

  /** Ends chromedriver and its Chromium (the whole process group), answering once they are gone. */
  async stop(name: string): Promise<void> {
    const container = this.containers.get(name);
    const pid = container?.pid;
    if (!container || pid === undefined) return;
    killGroup(pid, 'SIGTERM');
    const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), 1000);
    await container.gone;
    clearTimeout(timer);
    killGroup(pid, 'SIGKILL');
    await until(() => !processGroupAlive(pid), `the processes of group ${pid} are gone`, { intervalMs: 20 });
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.containers.keys()].map((name) => this.stop(name)));
  }
}

/**
 * A container for the process `child` (the leader of its process group): `gone` settles and `onExit` hears
 * why once it ends, after `cleanUp` (what the container held besides the process).
 */
export function watchContainer(
  child: ChildProcess,
  ip: string,
  onExit: (why: string) => void,
  cleanUp: () => void,
): LoopbackContainer {
  let settle = () => {};
  const container: LoopbackContainer = {
    ip,
    pid: child.pid,
    child,
    sockets: new Set(),
    gone: new Promise<void>((resolve) => {
      settle = resolve;
    }),
    exited: false,
  };
  const exited = (why: string) => {
    container.exited = true;
    cleanUp();
    onExit(why);
    settle();
  };
  child.once('exit', (code) => exited(`code ${code}`));
  child.once('error', (error) => exited(error.message));
  return container;
}

function forward(container: LoopbackContainer, driverPort: number, socket: Socket): void {
  const upstream = connect(driverPort, '127.0.0.1');
  for (const s of [socket, upstream]) {
    container.sockets.add(s);
    s.once('close', () => container.sockets.delete(s));
    s.on('error', () => {
      socket.destroy();
      upstream.destroy();
    });
  }
  socket.pipe(upstream).pipe(socket);
}

export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
