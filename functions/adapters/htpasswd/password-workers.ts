/**
 * A few threads that check passwords (password-check-worker.ts), so that bcrypt's cost is paid off the
 * event loop: however many wrong passwords arrive, the server keeps answering commands and /status.
 *
 * Threads start at the first check and are unref'd, so an idle directory never keeps a process alive.
 * How many checks may wait for a thread is password-check-queue.ts's business; this runs at most
 * `size` at once and refuses more.
 */
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { PasswordCheckAnswer, PasswordCheckRequest } from './password-check-worker';

interface Thread {
  worker: Worker;
  pending?: { id: number; resolve: (ok: boolean) => void; reject: (error: Error) => void };
}

export class PasswordWorkers {
  private readonly threads: Thread[] = [];
  private nextId = 0;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new Error(`password workers: size ${size} is not a positive integer`);
  }

  /** How many more checks can start right now. */
  get idle(): number {
    return this.size - this.threads.filter((thread) => thread.pending).length;
  }

  /** Whether `password` matches `hash`, checked on a free thread; rejects when none is free or the thread dies. */
  run(password: string, hash: string): Promise<boolean> {
    const thread = this.threads.find((candidate) => !candidate.pending) ?? this.startThread();
    const id = ++this.nextId;
    return new Promise<boolean>((resolve, reject) => {
      thread.pending = { id, resolve, reject };
      const request: PasswordCheckRequest = { id, password, hash };
      thread.worker.postMessage(request);
    });
  }

  /** Stops every thread; checks still running are rejected. */
  async close(): Promise<void> {
    const threads = this.threads.splice(0);
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  private startThread(): Thread {
    if (this.threads.length >= this.size)
      throw new Error(`password workers: all ${this.size} threads are busy`);
    const { script, options } = workerScript();
    const thread: Thread = { worker: new Worker(script, options) };
    thread.worker.unref();
    thread.worker.on('message', (answer: PasswordCheckAnswer) => {
      const pending = thread.pending;
      if (pending?.id !== answer.id) return;
      thread.pending = undefined;
      pending.resolve(answer.ok);
    });
    const lost = (reason: string) => {
      // A dead thread is replaced at the next check; the check it held fails rather than hanging.
      const index = this.threads.indexOf(thread);
      if (index >= 0) this.threads.splice(index, 1);
      thread.pending?.reject(new Error(`password check thread ${reason}`));
      thread.pending = undefined;
    };
    thread.worker.on('error', (error) => lost(`failed: ${error.message}`));
    thread.worker.on('exit', (code) => lost(`exited with code ${code}`));
    this.threads.push(thread);
    return thread;
  }
}

/**
 * The thread's code. Built (scripts/server-build.mjs), it is the entry `password-check-worker.mjs` beside
 * the server's entry, this module being in that entry or in its `chunks/`. From source (tests, tsx), Node
 * 20 cannot run the .ts file in a thread (loaders are not passed on to threads), so it is bundled here by
 * esbuild, a development dependency required only on this path, once per process.
 */
function workerScript(): { script: string; options: WorkerOptions } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    sourceBundle ??= bundleFromSource(join(dirname(here), 'password-check-worker.ts'));
    return { script: sourceBundle, options: { eval: true } };
  }
  const directory = basename(dirname(here)) === 'chunks' ? dirname(dirname(here)) : dirname(here);
  return { script: join(directory, 'password-check-worker.mjs'), options: {} };
}

let sourceBundle: string | undefined;

function bundleFromSource(entry: string): string {
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const result = esbuild.buildSync({
    entryPoints: [entry],
    bundle: true,
    // An evaluated thread script is CommonJS.
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'error',
  });
  return (result.outputFiles[0] as { text: string }).text;
}
