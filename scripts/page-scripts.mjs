/**
 * The status page's browser-side scripts: functions/http/ui/page-scripts/*.ts (type-checked under their own
 * tsconfig, DOM and no Node) compiled by esbuild into the text modules the app serves them from
 * (functions/http/ui/ui-script.ts, ui-recordings-script.ts), checked in so that the Node server, its build and
 * the router Lambda's bundle all serve them without a build step of their own and without reading files.
 * `npm run page-scripts` writes them; test/unit/page-scripts.test.ts fails when one is not what this makes.
 *
 * Plain JavaScript, like server-build.mjs, so that it runs before anything is built.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Each script: where its source is, the module it is served from, that module's export, what it is. */
export const PAGE_SCRIPTS = [
  {
    source: 'functions/http/ui/page-scripts/status-page.ts',
    module: 'functions/http/ui/ui-script.ts',
    name: 'UI_SCRIPT',
    what: "The status page's script (ui/app.js)",
  },
  {
    source: 'functions/http/ui/page-scripts/recordings-list.ts',
    module: 'functions/http/ui/ui-recordings-script.ts',
    name: 'UI_RECORDINGS_SCRIPT',
    what: "The status page's script for ended sessions with recordings (ui/recordings.js)",
  },
];

/** The text each module must have: [{ path, text }], path relative to the repository. */
export async function pageScriptModules() {
  const { build } = await import('esbuild');
  const modules = [];
  for (const script of PAGE_SCRIPTS) {
    const result = await build({
      entryPoints: [join(root, script.source)],
      bundle: true,
      // One function run at once: nothing leaks into the page's globals.
      format: 'iife',
      platform: 'browser',
      target: 'es2020',
      // Kept readable, and its text as written ('…', '—'), as the page served it before.
      minify: false,
      charset: 'utf8',
      legalComments: 'none',
      write: false,
      logLevel: 'error',
    });
    const code = result.outputFiles[0].text;
    modules.push({ path: script.module, text: moduleText(script, code) });
  }
  return modules;
}

function moduleText(script, code) {
  // A template literal's own characters, escaped so the text is the compiled code exactly.
  const literal = code.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${');
  return `/**
 * ${script.what}, compiled from ${script.source.replace('functions/http/ui/', '')} by
 * \`npm run page-scripts\` (scripts/page-scripts.mjs). Do not edit: edit the source and run that.
 */
export const ${script.name} = \`${literal}\`;
`;
}

// `npm run page-scripts`
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const { path, text } of await pageScriptModules()) {
    const file = join(root, path);
    let before = '';
    try {
      before = readFileSync(file, 'utf8');
    } catch {}
    if (before !== text) writeFileSync(file, text);
    console.error(`gridgate: ${before === text ? 'unchanged' : 'wrote'} ${path}`);
  }
}
