/**
 * The container engine's command line (podman, or Docker, which takes the same commands for what is used
 * here): run a container, find its published port, wait for it to exit, list and remove containers by label,
 * read its log. Every call is one child process with its arguments as an array (no shell), so nothing a pool
 * or a session names is ever interpreted by a shell.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export type EngineName = 'podman' | 'docker';

/** The longest one engine call may take: a `run` that must first unpack an image's layers takes seconds. */
const CALL_TIMEOUT_MS = 120_000;

export class EngineCallFailed extends Error {
  constructor(
    readonly command: string,
    readonly stderr: string,
  ) {
    super(`${command} failed: ${stderr.trim().split('\n').slice(-3).join(' / ') || 'no message'}`);
    this.name = 'EngineCallFailed';
  }
}

/** A running `wait` for one container: its exit code once it exits, and how to stop waiting. */
export interface ContainerExit {
  exited: Promise<number | undefined>;
  cancel(): void;
}

export class ContainerEngine {
  constructor(
    readonly name: EngineName,
    /** The engine's environment (e.g. CONTAINERS_CONF); default: this process's. */
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** Runs the engine to its end; its standard output, trimmed. Rejects with its standard error. */
  call(args: string[], signal?: AbortSignal): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        this.name,
        args,
        { env: this.env, timeout: CALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, signal },
        (error, stdout, stderr) => {
          if (error) reject(new EngineCallFailed(`${this.name} ${args[0]}`, stderr || error.message));
          else resolve(stdout.trim());
        },
      );
    });
  }

  /** Starts a container detached; its full ID. */
  async run(args: string[]): Promise<string> {
    const id = (await this.call(['run', '--detach', ...args])).split('\n').at(-1) ?? '';
    if (!/^[0-9a-f]{64}$/.test(id)) throw new EngineCallFailed(`${this.name} run`, `no container ID: ${id}`);
    return id;
  }

  /** The host port a container's TCP port is published on. */
  async publishedPort(id: string, port: number): Promise<number> {
    const answer = await this.call(['port', id, `${port}/tcp`]);
    const published = /:(\d+)\s*$/m.exec(answer)?.[1];
    if (!published)
      throw new EngineCallFailed(`${this.name} port`, `port ${port} is not published: ${answer}`);
    return Number(published);
  }

  /** The pid, on this machine, of the container's first process: what its namespaces are found by. */
  async pid(id: string): Promise<number> {
    const answer = await this.call(['inspect', '--format', '{{.State.Pid}}', id]);
    const pid = Number(answer);
    if (!Number.isInteger(pid) || pid <= 0)
      throw new EngineCallFailed(`${this.name} inspect`, `the container is not running (pid ${answer})`);
    return pid;
  }

  /** Waits for the container to exit (its code; undefined when the engine could not say). */
  waitForExit(id: string): ContainerExit {
    const child: ChildProcess = spawn(this.name, ['wait', id], {
      env: this.env,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = new Promise<number | undefined>((resolve) => {
      child.once('error', () => resolve(undefined));
      child.once('close', () => {
        const code = Number.parseInt(out.trim(), 10);
        resolve(Number.isNaN(code) ? undefined : code);
      });
    });
    return { exited, cancel: () => child.kill() };
  }

  /** Removes the container, stopping it first; one already gone is no error. */
  async remove(id: string): Promise<void> {
    // podman: two seconds for its programs to stop before SIGKILL; Docker's `rm -f` kills at once.
    const args =
      this.name === 'podman' ? ['rm', '--force', '--ignore', '--time=2', id] : ['rm', '--force', id];
    try {
      await this.call(args);
    } catch (error) {
      if (error instanceof EngineCallFailed && /no such container/i.test(error.stderr)) return;
      throw error;
    }
  }

  /** IDs and labels of the containers, running or not, that carry this label (`key` or `key=value`). */
  async list(label: string): Promise<{ id: string; labels: Record<string, string> }[]> {
    // podman prints a JSON array; Docker one JSON object a line, its labels as "a=b,c=d".
    const format = this.name === 'podman' ? 'json' : '{{json .}}';
    const out = await this.call([
      'ps',
      '--all',
      '--no-trunc',
      '--filter',
      `label=${label}`,
      '--format',
      format,
    ]);
    const entries: ListedContainer[] = out.startsWith('[')
      ? JSON.parse(out)
      : out
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line));
    return entries.flatMap((entry) => {
      const id = entry.Id ?? entry.ID;
      if (!id) return [];
      const labels =
        typeof entry.Labels === 'object' && entry.Labels ? entry.Labels : parseLabels(entry.Labels);
      return [{ id, labels }];
    });
  }

  /** Writes the container's output so far into a file of its own (mode 600), e.g. before it is removed. */
  async saveLogs(id: string, path: string): Promise<void> {
    await pipeline(this.logs(id), createWriteStream(path, { mode: 0o600 }));
  }

  /** The container's output so far (stdout and stderr together, as `logs` gives them). */
  logs(id: string): Readable {
    const child = spawn(this.name, ['logs', id], { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const both = new PassThrough();
    let open = 2;
    for (const stream of [child.stdout, child.stderr]) {
      stream.pipe(both, { end: false });
      stream.once('end', () => {
        if (--open === 0) both.end();
      });
    }
    child.once('error', (error) => both.destroy(error));
    return both;
  }
}

interface ListedContainer {
  Id?: string;
  ID?: string;
  Labels?: Record<string, string> | string | null;
}

/** Docker's `{{json .}}` gives labels as "a=b,c=d". */
function parseLabels(text: string | null | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at > 0) labels[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return labels;
}
