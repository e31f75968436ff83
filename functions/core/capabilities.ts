/**
 * New-session payloads: W3C `capabilities` processed as W3C WebDriver §7.2 "Processing capabilities"
 * says (alwaysMatch merged with each firstMatch), and JSON Wire `desiredCapabilities` translated to W3C.
 */
import { capabilityValueProblem, isStandardCapability } from './capability-values';
import { invalidArgument } from './errors';
import { parseJsonBody } from './json-body';

export type Capabilities = Record<string, unknown>;

export interface NewSessionRequest {
  /** Merged capability sets in the client's order of preference; the first one a pool serves wins. */
  candidates: Capabilities[];
  protocol: 'w3c' | 'jsonwire';
}

// JSON Wire names of capabilities that W3C renamed.
const JSON_WIRE_RENAMES: Record<string, string> = {
  version: 'browserVersion',
  platform: 'platformName',
  acceptSslCerts: 'acceptInsecureCerts',
  chromeOptions: 'goog:chromeOptions',
  firefox_profile: 'moz:firefoxOptions',
};

export function parseNewSessionBody(text: string): NewSessionRequest {
  const body = parseJsonBody(text, 'new session body');
  if (!isObject(body)) throw invalidArgument('new session body must be a JSON object');
  if (body.capabilities !== undefined) return { candidates: processW3c(body.capabilities), protocol: 'w3c' };
  if (isObject(body.desiredCapabilities)) {
    return { candidates: [fromJsonWire(body.desiredCapabilities)], protocol: 'jsonwire' };
  }
  throw invalidArgument('new session body needs "capabilities" (W3C) or "desiredCapabilities" (JSON Wire)');
}

function processW3c(capabilities: unknown): Capabilities[] {
  if (!isObject(capabilities)) throw invalidArgument('capabilities must be a JSON object');
  // §7.2 "Processing capabilities" defaults only a missing member: null is not an object, nor a list.
  const alwaysMatch = validate(
    capabilities.alwaysMatch === undefined ? {} : capabilities.alwaysMatch,
    'alwaysMatch',
  );
  const firstMatch = capabilities.firstMatch === undefined ? [{}] : capabilities.firstMatch;
  if (!Array.isArray(firstMatch) || firstMatch.length === 0) {
    throw invalidArgument('capabilities.firstMatch must be a list with at least one entry');
  }
  return firstMatch.map((entry, index) => {
    const validated = validate(entry, `firstMatch[${index}]`);
    // §7.2 "Merging capabilities": a key in both is an error, not an override.
    for (const key of Object.keys(validated)) {
      if (key in alwaysMatch)
        throw invalidArgument(`capability ${key} is in both alwaysMatch and firstMatch[${index}]`);
    }
    return { ...alwaysMatch, ...validated };
  });
}

function validate(capabilities: unknown, where: string): Capabilities {
  if (!isObject(capabilities)) throw invalidArgument(`capabilities.${where} must be a JSON object`);
  const valid: Capabilities = {};
  for (const [key, value] of Object.entries(capabilities)) {
    if (value === null) continue; // §7.2: null means "not set"
    if (!isStandardCapability(key) && !key.includes(':')) {
      throw invalidArgument(
        `unknown capability ${key} in ${where} (extension capabilities need a prefix, e.g. goog:)`,
      );
    }
    const problem = capabilityValueProblem(key, value);
    if (problem) {
      throw invalidArgument(`capability ${key} in ${where} ${problem}, not ${JSON.stringify(value)}`);
    }
    valid[key] = value;
  }
  return valid;
}

function fromJsonWire(desired: Capabilities): Capabilities {
  const translated: Capabilities = {};
  for (const [key, value] of Object.entries(desired)) {
    const name = JSON_WIRE_RENAMES[key] ?? key;
    if (value === null || value === undefined) continue;
    if (name === 'platformName' && typeof value === 'string') {
      // JSON Wire names platforms in upper case (Selenium's Platform enum: "LINUX"), W3C in lower case.
      if (value.toUpperCase() !== 'ANY') translated[name] = value.toLowerCase();
      continue;
    }
    if (name === 'browserVersion' && value === '') continue;
    // Keep what a W3C remote end accepts; JSON Wire-only keys would make chromedriver refuse the session.
    if (isStandardCapability(name) || name.includes(':')) translated[name] = value;
  }
  return validate(translated, 'desiredCapabilities');
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
