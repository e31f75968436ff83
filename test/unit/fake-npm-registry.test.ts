/**
 * The tests' npm registry on loopback (test/support/fake-npm-registry.ts) serves what the setup fetched
 * (scripts/test-npm-packages.ts) as the registry API does, and refuses what it refuses: a package it does not
 * hold is a 404, a write a 405.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_NPM_PACKAGES, TEST_NPM_TARBALLS, tarballFileOf } from '../../scripts/test-npm-packages';
import { type FakeNpmRegistry, startFakeNpmRegistry } from '../support/fake-npm-registry';

let registry: FakeNpmRegistry;
beforeAll(async () => {
  registry = await startFakeNpmRegistry();
});
afterAll(() => registry?.close());

describe("the tests' npm registry", () => {
  it.each(TEST_NPM_PACKAGES)(
    'serves %s: its packument, and its tarball with the integrity npm checks',
    async (spec) => {
      const at = spec.lastIndexOf('@');
      const [name, version] = [spec.slice(0, at), spec.slice(at + 1)];
      // npm asks for a scoped name with its slash encoded.
      const packument = await fetch(`${registry.url}${name.replace('/', '%2f')}`);
      expect(packument.status).toBe(200);
      const body = (await packument.json()) as {
        name: string;
        'dist-tags': { latest: string };
        versions: Record<string, { dist: { tarball: string; integrity: string } }>;
      };
      expect(body.name).toBe(name);
      expect(body['dist-tags'].latest).toBe(version);
      const { tarball, integrity } = body.versions[version]?.dist ?? { tarball: '', integrity: '' };
      expect(tarball.startsWith(registry.url)).toBe(true);
      const bytes = Buffer.from(await (await fetch(tarball)).arrayBuffer());
      // The file the setup's npm pack wrote, byte for byte.
      expect(bytes.equals(readFileSync(join(TEST_NPM_TARBALLS, tarballFileOf(spec))))).toBe(true);
      expect(integrity).toBe(`sha512-${createHash('sha512').update(bytes).digest('base64')}`);
    },
  );

  it('answers a package it does not hold as the registry answers one that does not exist', async () => {
    const missing = await fetch(`${registry.url}left-pad`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'Not found' });
  });

  it('takes no writes', async () => {
    const publish = await fetch(`${registry.url}playwright-core`, { method: 'PUT', body: '{}' });
    expect(publish.status).toBe(405);
  });
});
