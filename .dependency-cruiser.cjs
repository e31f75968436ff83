/**
 * Import rules `npm run lint` checks (dependency-cruiser): no import cycles, and imports that point
 * inward, as docs/architecture.md draws the layers: entry → servers → http → use-cases → core, with
 * adapters, pools and the WebDriver client beside the use cases implementing core's ports; each pool
 * kind (pools/<kind>/) kept to itself, only the parts ecs and eks share in between, and reached from outside
 * pools/ only by the composition root (entry/), everything else going through its runtime; core reads each
 * kind's config side (its schema and config-side traits), which is as pure as core itself.
 */
const layer = (name) => `^functions/${name}/`;
/** The kinds' config sides: each kind's pools/<kind>/<kind>-pool-config.ts and their list, pools/pool-configs.ts. */
const POOL_CONFIGS = '^functions/pools/(pool-configs|[^/]+/[^/]+-pool-config)[.]ts$';
/** The pure rules a kind's config side is built on, in its own folder: named one by one, each as pure as it. */
const POOL_CONFIG_PARTS =
  '^functions/pools/(local/(local-launch-options|chromium-switches)|hub/hub-endpoint)[.]ts$';

/** A kind's own Lambda entry (pools/<kind>/<name>-lambda.ts: ecs's Spot interruption handler), a composition root. */
const KIND_LAMBDA = '^functions/pools/[^/]+/[^/]+-lambda[.]ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'Modules that import each other are one concept in two files, or two concepts tangled.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-is-pure',
      severity: 'error',
      comment:
        "core/ is the pure rules and the ports: it imports no other layer of gridgate, only the kinds' config " +
        'sides (pools/pool-configs.ts, pools/<kind>/<kind>-pool-config.ts), which the config is built from.',
      from: { path: layer('core') },
      to: {
        path: layer('(http|use-cases|adapters|pools|webdriver-client|servers|entry)'),
        pathNot: POOL_CONFIGS,
      },
    },
    {
      name: 'pool-configs-are-pure',
      severity: 'error',
      comment:
        "A kind's config side is read by core, so it is as pure as core: it imports only core/ (itself no other " +
        "layer), zod, Node built-ins, other config sides (the list, its kinds'; ecs and eks, what they share) " +
        'and the pure rules beside it named in POOL_CONFIG_PARTS, which are held to the same.',
      from: { path: [POOL_CONFIGS, POOL_CONFIG_PARTS] },
      to: {
        pathNot: [layer('core'), '(^|/)node_modules/zod/', POOL_CONFIGS, POOL_CONFIG_PARTS],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'use-cases-over-ports',
      severity: 'error',
      comment: 'Use cases work over ports: no HTTP, no adapter, no pool kind, no wiring.',
      from: { path: layer('use-cases') },
      to: { path: layer('(http|adapters|pools|webdriver-client|servers|entry)') },
    },
    {
      name: 'adapters-implement-ports',
      severity: 'error',
      comment:
        'An adapter implements a port of core/; it knows neither the use cases, HTTP, the pool kinds nor the wiring.',
      from: { path: layer('adapters') },
      to: { path: layer('(http|use-cases|pools|servers|entry)') },
    },
    {
      name: 'pools-implement-ports',
      severity: 'error',
      comment:
        'A pool kind implements the ports of core/ over its platform (adapters/aws for ecs and eks); it knows ' +
        "neither the use cases, HTTP nor the wiring. A kind's own Lambda entry is wired as the other background " +
        "Lambdas are, by the jobs' wiring (entry/aws-job-wiring.ts), and by nothing else of entry/.",
      from: { path: layer('pools') },
      to: {
        path: layer('(http|use-cases|servers|entry)'),
        pathNot: '^functions/entry/aws-job-wiring[.]ts$',
      },
    },
    {
      name: 'only-kind-lambdas-use-the-job-wiring',
      severity: 'error',
      comment:
        "Within pools/, only a kind's own Lambda entry (pools/<kind>/<name>-lambda.ts) is a composition root: it " +
        "alone takes the background Lambdas' wiring (entry/aws-job-wiring.ts).",
      from: { path: layer('pools'), pathNot: KIND_LAMBDA },
      to: { path: '^functions/entry/aws-job-wiring[.]ts$' },
    },
    {
      name: 'pool-kinds-apart',
      severity: 'error',
      comment:
        "A pool kind is one folder: it imports no other kind's, only what ecs and eks share (a Selenium node " +
        'in a task or pod: pools/selenium-node/).',
      from: { path: '^functions/pools/([^/]+)/' },
      to: { path: '^functions/pools/[^/]+/', pathNot: '^functions/pools/($1|selenium-node)/' },
    },
    {
      name: 'pool-kinds-behind-runtimes',
      severity: 'error',
      comment:
        "A pool kind's folder (pools/<kind>/) is reached only through the registry (pools/index.ts) and the " +
        'PoolKind its entry is (pools/pool-kind.ts): its traits, and the runtime its load() makes ' +
        '(core/pool-runtime.ts, runtimeOf), which the wiring (entry/grid-wiring.ts) loops over. The servers, HTTP, ' +
        'the use cases and the entries import none (core only its config side: core-is-pure). What several kinds ' +
        "share (pools/selenium-node/) is no kind; what is not one kind's goes to a neutral place (adapters/).",
      from: { path: layer('(servers|http|use-cases|entry)') },
      to: { path: '^functions/pools/[^/]+/', pathNot: '^functions/pools/selenium-node/' },
    },
    {
      name: 'http-translates',
      severity: 'error',
      comment: "http/ translates HTTP to use cases; the adapters and the wiring are the entries' to choose.",
      from: { path: layer('http') },
      to: { path: layer('(adapters|pools|servers|entry)') },
    },
    {
      name: 'webdriver-client-speaks-webdriver',
      severity: 'error',
      comment:
        'The outbound WebDriver client speaks to browsers and hubs over core types: no app, no adapter, no wiring.',
      from: { path: layer('webdriver-client') },
      to: { path: layer('(http|use-cases|adapters|pools|servers|entry)') },
    },
    {
      name: 'servers-below-entry',
      severity: 'error',
      comment:
        "The servers (Node, Lambda) carry the app; which adapters they run with is the entries' to choose.",
      from: { path: layer('servers') },
      to: { path: layer('entry') },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
