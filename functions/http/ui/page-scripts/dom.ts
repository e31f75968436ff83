/**
 * What the status page's scripts build the page with: elements made with their text as textContent (never
 * parsed as HTML), the page's own elements by ID, and the JSON endpoints' error messages.
 */

/** A new element; `text`, when given, is its textContent. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string | null,
  text?: string | number | null,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** A link to one of the page's own URLs (relative: ui/api/…), its text as textContent. */
export function link(href: string, text: string): HTMLAnchorElement {
  const a = el('a', null, text);
  a.href = href;
  return a;
}

/** The page's element of that ID, of that type (the page's HTML is ui-page.ts's: one missing is a bug). */
export function byId<T extends HTMLElement>(id: string, type: { new (): T; prototype: T }): T {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`the page has no ${type.name} #${id}`);
  return node;
}

/** What a JSON endpoint's answer says went wrong: its W3C error body's message, else the HTTP status. */
export function failureMessage(data: unknown, status: number): string {
  const message = (data as { value?: { message?: unknown } } | null)?.value?.message;
  return typeof message === 'string' && message ? message : `HTTP ${status}`;
}

/** What a session's test said of itself, as both lists and the session's page write it. */
export interface TestFacts {
  result?: { status: string; reason?: string };
  build?: string;
  project?: string;
  labels?: Record<string, string>;
}

/** "passed", "failed: why" or "unknown" (no result given). */
export function resultText(facts: TestFacts): string {
  const { result } = facts;
  if (!result) return 'unknown';
  return result.reason ? `${result.status}: ${result.reason}` : result.status;
}

/** The result as a cell's class, so failures stand out. */
export const resultClass = (facts: TestFacts) => `result-${facts.result?.status ?? 'unknown'}`;

/** Build, project and labels on one line ("build b7 · project shop · team=payments smoke"), or "". */
export function groupingText(facts: TestFacts): string {
  const labels = Object.entries(facts.labels ?? {}).map(([key, value]) => (value ? `${key}=${value}` : key));
  return [
    facts.build ? `build ${facts.build}` : '',
    facts.project ? `project ${facts.project}` : '',
    labels.join(' '),
  ]
    .filter(Boolean)
    .join(' · ');
}
