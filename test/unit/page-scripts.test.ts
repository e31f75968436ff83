/**
 * The status page's scripts are TypeScript (functions/http/ui/page-scripts/), served from checked-in text
 * modules: each module must be what its source compiles to now, so an edit to a source that was not
 * compiled (or an edit to the compiled text) fails here instead of serving something else.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PAGE_SCRIPTS, pageScriptModules } from '../../scripts/page-scripts.mjs';

describe('the status page scripts', () => {
  it('are served as their TypeScript sources compile now (npm run page-scripts)', async () => {
    const modules = await pageScriptModules();
    expect(modules.map((m) => m.path)).toEqual(PAGE_SCRIPTS.map((script) => script.module));
    for (const { path, text } of modules) {
      expect(readFileSync(path, 'utf8'), `${path} is stale: run npm run page-scripts`).toBe(text);
    }
  });

  it('are compiled by `npm run page-scripts`, and checked by `npm run typecheck` under their own tsconfig', () => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts['page-scripts']).toBe('node scripts/page-scripts.mjs');
    expect(scripts.typecheck).toContain('tsc --noEmit -p functions/http/ui/page-scripts');
  });

  it('are each one script that runs in a browser page: no import or export left', async () => {
    const { UI_SCRIPT } = await import('../../functions/http/ui/ui-script');
    const { UI_RECORDINGS_SCRIPT } = await import('../../functions/http/ui/ui-recordings-script');
    for (const script of [UI_SCRIPT, UI_RECORDINGS_SCRIPT]) {
      expect(() => new Function(script)).not.toThrow();
    }
  });
});
