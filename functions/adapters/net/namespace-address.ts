/**
 * The address a local browser's network namespace gives itself, known both to what makes the namespaces
 * (pools/local/browser-namespace.ts) and to what listens inside one for its browser alone
 * (servers/node/playwright/browser-network-listener.ts).
 */

// A documentation range (RFC 5737): never a real network, so the namespace's gateway is never mistaken for one.
// The namespace's own address is reached from inside it only (pasta forwards nothing else in).
export const NAMESPACE_ADDRESS = '192.0.2.2';
