/**
 * An npm registry on 127.0.0.1 serving the tarballs of one folder (scripts/test-npm-packages.ts fetches them),
 * so the tests install packages as users do, from a registry, without reaching the internet. It answers what
 * the npm CLI asks to install (the registry API, github.com/npm/registry docs/REGISTRY-API.md): a package's
 * packument at `GET /{name}` (a scoped name's slash encoded or not) and each version's tarball at the packument's
 * `dist.tarball`, with the `dist.integrity` npm checks; a package it does not hold is a 404 `{"error":"Not
 * found"}`, as the registry answers one that does not exist, and it takes no writes (405). It records every
 * path asked, so a test shows npm came here.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { TEST_NPM_TARBALLS } from '../../scripts/test-npm-packages';

export interface FakeNpmRegistry {
  /** The registry's address with a trailing slash, as npm's `registry` setting takes it. */
  url: string;
  /** The paths asked so far, decoded, in order. */
  requests: string[];
  close(): Promise<void>;
}

interface Manifest {
  name: string;
  version: string;
  [key: string]: unknown;
}

interface Packument {
  name: string;
  'dist-tags': { latest: string };
  versions: Record<string, Manifest>;
}

/** The registry's files: a packument per package name and the tarballs by path. */
function registryFiles(folder: string, url: string) {
  const packuments = new Map<string, Packument>();
  const tarballs = new Map<string, Buffer>();
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.tgz'))) {
    const bytes = readFileSync(join(folder, file));
    const manifest = JSON.parse(
      execFileSync('tar', ['-xzOf', join(folder, file), 'package/package.json'], { encoding: 'utf8' }),
    ) as Manifest;
    // The registry's own tarball path: /@scope/name/-/name-1.2.3.tgz.
    const path = `/${manifest.name}/-/${manifest.name.split('/').pop()}-${manifest.version}.tgz`;
    tarballs.set(path, bytes);
    const packument = packuments.get(manifest.name) ?? {
      name: manifest.name,
      'dist-tags': { latest: manifest.version },
      versions: {},
    };
    packument.versions[manifest.version] = {
      ...manifest,
      dist: {
        tarball: `${url}${path.slice(1)}`,
        integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
        shasum: createHash('sha1').update(bytes).digest('hex'),
      },
    };
    if (newer(manifest.version, packument['dist-tags'].latest))
      packument['dist-tags'].latest = manifest.version;
    packuments.set(manifest.name, packument);
  }
  return { packuments, tarballs };
}

/** Whether release version `a` comes after `b` (x.y.z, numerically). */
function newer(a: string, b: string): boolean {
  const [left, right] = [a, b].map((version) => version.split('.').map(Number)) as [number[], number[]];
  const index = left.findIndex((part, at) => part !== right[at]);
  return index >= 0 && (left[index] as number) > (right[index] ?? 0);
}

/** Starts the registry on a free loopback port, serving the tarballs in `folder`. */
export async function startFakeNpmRegistry(folder = TEST_NPM_TARBALLS): Promise<FakeNpmRegistry> {
  const requests: string[] = [];
  let files: ReturnType<typeof registryFiles> | undefined;
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://registry').pathname);
    requests.push(path);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { 'content-type': 'application/json' }).end('{"error":"Method not allowed"}');
      return;
    }
    const packument = files?.packuments.get(path.slice(1));
    const tarball = files?.tarballs.get(path);
    if (packument) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument));
    } else if (tarball) {
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball);
    } else {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  files = registryFiles(folder, url);
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
