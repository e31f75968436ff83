/**
 * gridgate's own chromium-only browser image (images/chromium) for ecs pools: an `"image":
 * "build:images/chromium"` pool gets it built from that folder for its architecture and pushed to the account's
 * ECR, instead of a docker-selenium image copied there. It is Chromium and chromedriver and nothing else, so a
 * task pulls less before its session starts (docs/aws.md, "First day"); what it lacks is refused here, at
 * synth, rather than found by a first session: no VNC (no X display), no Selenium node for docker-selenium's
 * video recorder to watch, and eks pools, whose pods pull their image by name from a registry.
 */
import { join } from 'node:path';
import type { Config } from '../functions/core/config';

/** What a pool's `image` says to run gridgate's chromium-only image; never a registry's name (a `:` before `/`). */
export const CHROMIUM_IMAGE = 'build:images/chromium';

/** The image's build context. */
export const CHROMIUM_IMAGE_FOLDER = join(import.meta.dirname, '../images/chromium');

export function isChromiumImage(image: string): boolean {
  return image === CHROMIUM_IMAGE;
}

/** Why each pool of `config` that names the chromium-only image cannot run it; empty when all can. */
export function chromiumImageProblems(config: Config): string[] {
  const problems: string[] = [];
  for (const [name, pool] of Object.entries(config.pools)) {
    if (!('image' in pool) || !isChromiumImage(pool.image)) continue;
    if (pool.kind === 'eks') {
      problems.push(
        `pools.${name}: an eks pod pulls its image by name and the stack builds ${CHROMIUM_IMAGE} for ecs pools only; push images/chromium to a registry the cluster reaches and name that image`,
      );
      continue;
    }
    if (pool.kind !== 'ecs') continue;
    if (pool.vncPort) {
      problems.push(
        `pools.${name}: ${CHROMIUM_IMAGE} has no display and no VNC server; set "vncPort": false (the status page then shows screenshots) or run a docker-selenium image`,
      );
    }
    if (pool.recorder) {
      problems.push(
        `pools.${name}: docker-selenium's video recorder watches a Selenium node, which ${CHROMIUM_IMAGE} does not have; remove "recorder" or run a docker-selenium image`,
      );
    }
  }
  return problems;
}
