/**
 * Finding a hub's sessions whose creation was abandoned: a head that dies after asking a hub for a session
 * never learns the hub's session ID, so each new session is asked for with gridgate's key as an extension
 * capability (W3C §7.2: a name with a colon; chromedriver ignores it, Selenium Grid 4 keeps it), and
 * Selenium Grid 4 lists every running session with the capabilities it was asked for in its /status
 * (value.nodes[].slots[].session). Hubs that list nothing there (ggr, Selenoid) yield nothing: their own
 * session timeout ends such a session.
 */
import { isObject } from '../../core/capabilities';

/** The capability a hub's new session carries gridgate's key in. */
export const CREATION_TAG = 'gridgate:creation';

/** The hub's sessions, in its /status answer, asked for under one of `keys`: the key each was asked under, by session ID. */
export function abandonedSessions(status: unknown, keys: ReadonlySet<string>): Map<string, string> {
  const found = new Map<string, string>();
  const nodes = isObject(status) && isObject(status.value) ? status.value.nodes : undefined;
  for (const node of Array.isArray(nodes) ? nodes : []) {
    const slots = isObject(node) ? node.slots : undefined;
    for (const slot of Array.isArray(slots) ? slots : []) {
      const session = isObject(slot) ? slot.session : undefined;
      if (!isObject(session) || typeof session.sessionId !== 'string' || !isObject(session.capabilities))
        continue;
      const key = session.capabilities[CREATION_TAG];
      if (typeof key === 'string' && keys.has(key)) found.set(session.sessionId, key);
    }
  }
  return found;
}
