/**
 * One Lambda execution environment on this machine: the router bundle, built as the CDK app builds it,
 * run by the real runtime interface client (aws-lambda-ric on Node.js 22) as a child process against
 * the Runtime API emulator, with the environment Lambda sets (LAMBDA_TASK_ROOT, _HANDLER,
 * AWS_LAMBDA_RUNTIME_API, AWS_LAMBDA_FUNCTION_*) plus what the test gives. The process is kept across
 * invocations, as a warm environment is, and the loopback guard records where it connected.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { routerBundleOptions } from '../../functions/entry/router-bundle-options';
import { LambdaRuntimeApi, type RuntimeInvocation } from './lambda-runtime-api';
import { installRuntimeClient } from './lambda-runtime-client';

const GUARD = fileURLToPath(new URL('./loopback-guard.cjs', import.meta.url));

export interface GuardEntry {
  kind: 'connect' | 'lookup';
  host?: string;
  port?: number;
  path?: string;
  allowed: boolean;
}

export class RealLambda {
  private constructor(
    readonly api: LambdaRuntimeApi,
    readonly child: ChildProcess,
    private readonly dir: string,
    private readonly output: string[],
  ) {}

  /** Builds the bundle, installs the runtime client if needed, and starts the environment. */
  static async start(env: Record<string, string>): Promise<RealLambda> {
    const dir = mkdtempSync(join(tmpdir(), 'gridgate-real-lambda-'));
    const taskRoot = join(dir, 'task');
    const [client] = await Promise.all([installRuntimeClient(), build(routerBundleOptions(taskRoot))]);
    const api = await LambdaRuntimeApi.start();
    writeFileSync(join(dir, 'connections.jsonl'), '');
    const child = spawn(client.node, [client.entry], {
      cwd: taskRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        TZ: ':UTC',
        LANG: 'en_US.UTF-8',
        LAMBDA_TASK_ROOT: taskRoot,
        _HANDLER: 'router-lambda.handler',
        AWS_LAMBDA_RUNTIME_API: api.address,
        AWS_LAMBDA_FUNCTION_NAME: 'gridgate-router',
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
        AWS_LAMBDA_LOG_GROUP_NAME: '/aws/lambda/gridgate-router',
        AWS_LAMBDA_LOG_STREAM_NAME: 'test',
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
        AWS_REGION: 'us-east-1',
        AWS_DEFAULT_REGION: 'us-east-1',
        AWS_EC2_METADATA_DISABLED: 'true',
        NODE_OPTIONS: `--require ${GUARD}`,
        LOOPBACK_GUARD_LOG: join(dir, 'connections.jsonl'),
        ...env,
      },
    });
    const output: string[] = [];
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    return new RealLambda(api, child, dir, output);
  }

  /** One invocation with `timeoutMs` left on the clock; rejects if the environment died meanwhile. */
  async invoke(event: unknown, timeoutMs = 60_000): Promise<RuntimeInvocation> {
    if (this.child.exitCode !== null) throw new Error(`the runtime exited:\n${this.log()}`);
    let onExit: ((code: number | null) => void) | undefined;
    const died = new Promise<never>((_, reject) => {
      onExit = (code) => reject(new Error(`the runtime exited with ${code}:\n${this.log()}`));
      this.child.once('exit', onExit);
    });
    try {
      return await Promise.race([this.api.invoke(event, timeoutMs), died]);
    } finally {
      if (onExit) this.child.off('exit', onExit);
    }
  }

  /** What the function printed (its JSON log lines, the runtime's own messages). */
  log(): string {
    return this.output.join('');
  }

  /** Every connection and name lookup the function made, as the loopback guard saw them. */
  connections(): GuardEntry[] {
    return readFileSync(join(this.dir, 'connections.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as GuardEntry);
  }

  async close(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGKILL');
      await exited;
    }
    await this.api.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
