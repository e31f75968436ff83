/** The status page's browser-side scripts, compiled into the text modules the app serves (page-scripts.mjs). */
export const PAGE_SCRIPTS: { source: string; module: string; name: string; what: string }[];
/** The text each module must have, path relative to the repository. */
export function pageScriptModules(): Promise<{ path: string; text: string }[]>;
