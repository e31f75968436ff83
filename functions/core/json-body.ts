/**
 * Request bodies gridgate reads as JSON itself, parsed only when they nest no deeper than a browser would
 * read them. JSON.parse takes any depth, but the code that walks the value afterwards (capability checks
 * and merges, the launchers' option handling, JSON.stringify on the way to the browser) recurses once per
 * level: 10,000 nested objects overflow the stack, which would answer 500 "Maximum call stack size
 * exceeded" instead of telling the client its body is refused.
 */
import { invalidArgument } from './errors';

/**
 * The deepest nesting read: Chromium's JSON reader, which chromedriver reads every command with, refuses
 * anything deeper (base/json/json_common.h, kAbsoluteMaxDepth), so no body a browser takes is refused.
 */
export const MAX_JSON_DEPTH = 200;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * The JSON value of a body, or 400 `invalid argument` when it is not JSON or nests deeper than
 * MAX_JSON_DEPTH. `what` names the body in the messages ("new session body").
 */
export function parseJsonBody(text: string, what: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidArgument(`${what} is not valid JSON: ${(error as Error).message}`);
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw invalidArgument(
      `${what} nests objects and lists more than ${MAX_JSON_DEPTH} levels deep, deeper than gridgate (or chromedriver) reads`,
    );
  }
  return value;
}

/**
 * Whether valid JSON text opens more than `limit` objects or lists inside one another: one pass without
 * recursion, which jumps over each string with indexOf (a file upload is one long base64 string).
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      at = closingQuote(text, at);
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
      if (depth > limit) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** Where the string opened at `open` ends: the next quote not escaped by an odd run of backslashes. */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return text.length;
}
