/**
 * Whether a pool's browser image names a moving tag. An image mirrored into the account's ECR is a CDK
 * asset hashed from its Dockerfile and build arguments, never from what the remote tag points at, so a
 * pool on `:latest` keeps the Chrome of its first deploy for good; one pulled from the registry directly
 * changes Chrome under running suites, at whatever moment Docker Hub moves the tag. A dated release tag
 * (docker-selenium's `4.39.0-20251202`) or a digest changes only when the config does.
 */

/** The tag of an image reference (`latest` when none is given), or undefined when it is pinned by digest. */
export function imageTag(image: string): string | undefined {
  if (image.includes('@')) return undefined;
  const name = image.slice(image.lastIndexOf('/') + 1);
  const colon = name.indexOf(':');
  return colon === -1 ? 'latest' : name.slice(colon + 1);
}

/** Why this image is a problem for a pool, or undefined when it is pinned. */
export function movingTagWarning(pool: string, image: string, mirrored: boolean): string | undefined {
  if (imageTag(image) !== 'latest') return undefined;
  const effect = mirrored
    ? 'the image mirrored into ECR is built once, so the pool keeps the Chrome of the first deploy and never updates'
    : 'Fargate pulls whatever the tag points at when each task starts, so Chrome changes under running suites without a deploy';
  return `pool "${pool}" (${image}): a moving tag; ${effect}. Pin a dated tag such as selenium/standalone-chrome:4.39.0-20251202 or a digest, and change it to move to a newer Chrome (docs/aws.md).`;
}
