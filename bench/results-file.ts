/** Writes a run's results as JSON into bench/results/ (git-ignored): latest.json and a dated copy. */
import { mkdir, writeFile } from 'node:fs/promises';

export async function writeResults(directory: URL, results: object): Promise<URL> {
  await mkdir(directory, { recursive: true });
  const latest = new URL('latest.json', directory);
  const text = `${JSON.stringify(results, null, 2)}\n`;
  await writeFile(latest, text);
  // The dated copy keeps earlier runs around to compare with.
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  await writeFile(new URL(`${stamp}.json`, directory), text);
  return latest;
}
