/** What a cloud browser's node is asked for in the new-session request, whether it runs in a task or a pod. */
import type { Capabilities } from '../../core/capabilities';

/**
 * The client's capabilities without browserVersion. The catalog has matched the version already and the
 * pool's image is that version; the catalog's name for it ("156", "stable") need not be the node's full
 * version, which a node compares strictly (W3C WebDriver §7.2 "Matching capabilities").
 */
export function nodeCapabilities(requested: Capabilities): Capabilities {
  const { browserVersion: _version, ...rest } = requested;
  return rest;
}
