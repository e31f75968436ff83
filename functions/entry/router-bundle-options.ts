/**
 * How the router Lambda is bundled, for the CDK app and the benchmark alike (bench/lambda-bundle.ts
 * measures exactly this). ESM with code splitting: the entry chunk and the chunks it imports statically
 * are what a cold start evaluates; ECS (the SDK client and the launcher) sits in chunks loaded at the
 * first new session on an ecs pool. The whole outdir is the function's asset; its handler is
 * `router-lambda.handler`.
 */
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';
import { NOT_IN_LAMBDAS } from './lambda-bundle-externals';

/**
 * CJS dependencies (undici, the SDK's) call require() on Node built-ins; an ESM bundle has no
 * require, so one is made for it. Without this the bundle fails at import: "Dynamic require of
 * node:assert is not supported".
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __gridgateCreateRequire } from 'node:module'; const require = __gridgateCreateRequire(import.meta.url);";

/** The esbuild options of the router Lambda's asset; `outdir` is the asset directory. */
export function routerBundleOptions(outdir: string): BuildOptions & { outdir: string; metafile: true } {
  return {
    entryPoints: { 'router-lambda': fileURLToPath(new URL('./router-lambda.ts', import.meta.url)) },
    outdir,
    // .mjs: the Lambda runtime loads a .js handler as CommonJS unless a package.json says otherwise.
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    // The SDK's ES module builds (dist-es) tree-shake; their CommonJS builds (main) do not.
    mainFields: ['module', 'main'],
    minify: true,
    treeShaking: true,
    // Only the parts of undici the router uses (see undici-lean.ts).
    alias: { undici: fileURLToPath(new URL('./undici-lean.ts', import.meta.url)) },
    // Parses a browser's user agent for the SDK in browsers: never loaded under Node, yet esbuild
    // makes a chunk of every import() it sees, even in code it shakes out (35 KiB of the asset).
    // And the runtimes no Lambda loads (lambda-bundle-externals.ts).
    external: ['bowser', ...NOT_IN_LAMBDAS],
    banner: { js: ESM_REQUIRE_BANNER },
    // No source map: under --enable-source-maps Node reads and parses it at import, which made init
    // about 80–120 ms slower in the benchmark. Infra that wants traces can ship a map without the flag.
    sourcemap: false,
    metafile: true,
    logLevel: 'error',
  };
}
