// Biome lints and formats everything; ESLint runs only the checks that need TypeScript's type checker:
// a promise nobody awaits or catches (a rejection in a timer or event handler ends the Node process).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // Only our TypeScript: built bundles (dist/, cdk.out/) and plain JavaScript carry other tools' directives.
  { ignores: ['**/*.js', '**/*.mjs', '**/*.cjs', 'dist/**', 'cdk.out/**', 'node_modules/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `void promise` is not handling it: the rejection still ends the process.
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false }],
      // An async callback where a plain one is expected (setInterval, EventEmitter.on) floats its promise too.
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksConditionals: false, checksSpreads: false },
      ],
    },
  },
);
