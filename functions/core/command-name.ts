/**
 * A WebDriver command's name for people: its method and path template after /session/{id}, with the IDs
 * and names the W3C routes carry in the path (W3C WebDriver §6.1's endpoint table) replaced by
 * placeholders, e.g. `POST /element/{id}/click`. Built only when a store keeps a command, never per call.
 */

// Segments followed by an ID or a name the browser or the client chose (elements, shadow roots, cookies).
const NAMED_BY_NEXT = new Set(['element', 'shadow', 'cookie']);
// Long enough for every W3C path; anything longer is cut, so a stored record stays small.
const MAX_LENGTH = 120;

export function commandName(method: string, path: string): string {
  const segments = path.split('/');
  for (let i = 1; i < segments.length; i++) {
    const previous = segments[i - 1] as string;
    if (NAMED_BY_NEXT.has(previous) && segments[i] !== '' && !isFixedSegment(segments[i] as string)) {
      segments[i] = previous === 'cookie' ? '{name}' : '{id}';
    }
  }
  // The session itself (Delete Session, Get Session of some clients) has no path of its own.
  const name = `${method.toUpperCase()} ${path === '' || path === '/' ? 'session' : segments.join('/')}`;
  return name.length > MAX_LENGTH ? `${name.slice(0, MAX_LENGTH - 1)}…` : name;
}

// `/element/active` is a command of its own (Get Active Element, §12.3.8), not an element's ID.
function isFixedSegment(segment: string): boolean {
  return segment === 'active';
}
