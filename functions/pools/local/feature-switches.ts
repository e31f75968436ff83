/**
 * Chromium's feature switches (--disable-features, --enable-features) hold lists, and Chromium reads only the
 * last of each: a second switch would silently undo the first. chromedriver joins its own list with a
 * client's; gridgate joins its lists the same way. Chromium takes "-name=" for "--name=" too (its CommandLine
 * accepts either prefix on POSIX) and chromedriver adds "--" to a bare "name=", so each spelling counts.
 */
import { parseSwitch, switchName } from './chromium-switches';

/** The features Chromium starts with that no session can see and that cost it time. */
export const FEATURES_NO_SESSION_SEES: readonly string[] = [
  // Chromium 156 preloads its omnibox popup, a WebUI page in a renderer of its own, at every start, headless
  // too, where no omnibox is ever shown: ~0.8 s of CPU in the 600 ms after a new session answers (measured
  // with /proc, bench/README), which its first commands wait behind on a machine with few cores. Without
  // them a headed window's omnibox falls back to its native popup.
  'WebUIOmniboxPopup',
  'WebUIOmniboxAimPopup',
];

/** "--disable-features=A,B" → ["A", "B"]. */
const listOf = (arg: string) => (parseSwitch(arg).value ?? '').split(',').filter(Boolean);

/**
 * `args` with every `--<name>=` switch joined into one at the place of the first (or added last), listing their
 * features and then those of `features` not listed yet; one the arguments turn the other way is not added.
 */
export function withFeatures(
  args: readonly string[],
  name: 'disable-features' | 'enable-features',
  features: readonly string[],
): string[] {
  const opposite = name === 'disable-features' ? 'enable-features' : 'disable-features';
  const isNamed = (arg: string) => switchName(arg) === name;
  const chosen = new Set(args.filter((arg) => switchName(arg) === opposite).flatMap(listOf));
  const listed = args.filter(isNamed).flatMap(listOf);
  const all = [...new Set([...listed, ...features.filter((feature) => !chosen.has(feature))])];
  if (all.length === 0) return [...args];
  const first = args.findIndex(isNamed);
  const others = args.filter((arg) => !isNamed(arg));
  const at = first === -1 ? others.length : first;
  return [...others.slice(0, at), `--${name}=${all.join(',')}`, ...others.slice(at)];
}
