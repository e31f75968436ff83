/**
 * Runs the test files that need the container test images (scripts/test-images.ts) after all the others.
 * .ci/run starts the images' build in the background and runs the suite at once: with these files last, the
 * build's minutes (mostly downloads and disk) pass while the rest of the suite runs, and a file that needs an
 * image finds it built, or waits on the build's lock in its beforeAll.
 */
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** A file that imports the images' builder, directly or through the container grid helper. */
const IMPORTS_TEST_IMAGES = /from '[^']*(?:scripts\/test-images|support\/container-grid)'/;

function needsImages(file: TestSpecification): boolean {
  return IMPORTS_TEST_IMAGES.test(readFileSync(file.moduleId, 'utf8'));
}

export class ImagesLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter((file) => !needsImages(file)), ...sorted.filter(needsImages)];
  }
}
