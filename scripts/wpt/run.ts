/**
 * `npm run wpt`: the W3C WebDriver tests (web-platform-tests, ../shared/wpt) against a bare chromedriver and
 * against a zero-config gridgate in the same run, the two result sets side by side. Exits 1 when a test that
 * passes against chromedriver does not pass through gridgate (documented deviations aside), 0 when the
 * checkout is absent (it says so and skips).
 *
 *   npm run wpt                      # the directories where gridgate adds behaviour, and a sample of commands
 *   npm run wpt -- --all             # every directory
 *   npm run wpt -- new_session status --wpt /path/to/wpt --python /usr/bin/python3 --out results.json
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { JsonLogger } from '../../functions/adapters/stdout/json-logger';
import { compare, formatComparison } from './compare';
import { type Results, runPytest, startWebServer, testDirectories, testFiles } from './pytest-run';
import { type RemoteEnd, startChromedriver, startGridgate } from './remote-ends';

const REPO = resolve(import.meta.dirname, '../..');
// Where gridgate answers itself (new session, delete, status), and a sample of commands it only forwards.
const DEFAULT_DIRECTORIES = [
  'new_session',
  'delete_session',
  'status',
  'get_timeouts',
  'get_title',
  'navigate_to',
];
const PYTHON_MODULES = ['pytest', 'pytest_asyncio', 'pytest_timeout', 'websockets'];

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    all: { type: 'boolean', default: false },
    wpt: { type: 'string', default: resolve(REPO, '../shared/wpt') },
    python: { type: 'string', default: '/usr/bin/python3' },
    out: { type: 'string', default: join(REPO, '.tmp/wpt/results.json') },
  },
});
const wpt = resolve(values.wpt);
const python = values.python;

if (!existsSync(join(wpt, 'webdriver', 'tests'))) {
  console.log(`wpt: no web-platform-tests checkout at ${wpt} (webdriver/tests); skipping the W3C tests`);
  process.exit(0);
}
const missing = PYTHON_MODULES.filter(
  (module) => spawnSync(python, ['-c', `import ${module}`], { stdio: 'ignore' }).status !== 0,
);
if (missing.length > 0) {
  console.error(
    `wpt: ${python} lacks ${missing.join(', ')}; on Debian: apt-get install python3-pytest ` +
      'python3-pytest-asyncio python3-pytest-timeout python3-websockets',
  );
  process.exit(2);
}

const available = testDirectories(wpt);
const directories = values.all ? available : positionals.length > 0 ? positionals : DEFAULT_DIRECTORIES;
const unknown = directories.filter((directory) => !available.includes(directory));
if (unknown.length > 0) {
  console.error(`wpt: no test directory ${unknown.join(', ')} in ${wpt}/webdriver/tests`);
  process.exit(2);
}
const files = directories.flatMap((directory) => testFiles(wpt, directory));
const work = join(REPO, '.tmp', 'wpt');
mkdirSync(work, { recursive: true });
const gridLog = join(work, 'gridgate.log');
writeFileSync(gridLog, '');
const logger = new JsonLogger((line) => appendFileSync(gridLog, line));

const server = await startWebServer(python, wpt, join(work, 'server-config.json'));
const results: Record<string, Results> = {};
const seconds: Record<string, number> = {};
try {
  for (const start of [startChromedriver, () => startGridgate(logger)]) {
    const remote: RemoteEnd = await start();
    const began = performance.now();
    console.log(`wpt: ${files.length} files of ${directories.join(', ')} against ${remote.name}`);
    try {
      results[remote.name] = await runPytest({
        python,
        wpt,
        remote,
        server,
        files,
        outcomesFile: join(work, `${remote.name}.jsonl`),
        log: (line) => console.log(`  [${remote.name}] ${line}`),
      });
    } finally {
      await remote.stop();
    }
    seconds[remote.name] = Math.round((performance.now() - began) / 1000);
  }
} finally {
  await server.stop();
}

const comparison = compare(results.chromedriver ?? new Map(), results.gridgate ?? new Map());
console.log(`\n${formatComparison(comparison)}`);
console.log(
  `\nwpt: ${seconds.chromedriver} s against chromedriver, ${seconds.gridgate} s through gridgate; ` +
    `gridgate's log: ${gridLog}`,
);
const outcomes = {
  chromedriver: Object.fromEntries(results.chromedriver ?? []),
  gridgate: Object.fromEntries(results.gridgate ?? []),
};
const { directories: counts, differences, regressions } = comparison;
const report = { directories, seconds, counts, differences, regressions, outcomes };
writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
if (comparison.regressions > 0) {
  console.error(`wpt: ${comparison.regressions} test(s) pass against chromedriver but not through gridgate`);
  process.exit(1);
}
