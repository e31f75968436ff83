import { describe, expect, it } from 'vitest';
import { WebDriverError } from '../../functions/core/errors';
import { exposedNetwork } from '../../functions/core/exposed-network';

const exposes = (pattern: string, host: string, port = 80) => exposedNetwork(pattern)?.exposes(host, port);

describe("a Playwright client's exposeNetwork pattern", () => {
  it('is none when the client sends an empty header, as every Playwright client does without the option', () => {
    expect(exposedNetwork('')).toBeUndefined();
    expect(exposedNetwork(undefined)).toBeUndefined();
  });

  it("exposes Playwright's loopback names and literals for <loopback>, and no other loopback address", () => {
    for (const host of ['localhost', 'app.localhost', '127.0.0.1', '[::1]']) {
      expect(exposes('<loopback>', host)).toBe(true);
    }
    for (const host of ['127.0.0.2', 'localhost.example.com', 'example.com']) {
      expect(exposes('<loopback>', host)).toBe(false);
    }
  });

  it('holds a token with a port to that port', () => {
    expect(exposes('localhost:3000', 'localhost', 3000)).toBe(true);
    expect(exposes('localhost:3000', 'localhost', 3001)).toBe(false);
    expect(exposes('<loopback>:3000', '127.0.0.1', 3001)).toBe(false);
  });

  it('reads wildcards and a leading dot as subdomains, never matching an IP literal by a name', () => {
    expect(exposes('*.example.com', 'api.example.com')).toBe(true);
    expect(exposes('.example.com', 'api.example.com')).toBe(true);
    expect(exposes('.example.com', 'example.org')).toBe(false);
    expect(exposes('*', '10.0.0.1')).toBe(true);
    expect(exposes('10.*', '10.0.0.1')).toBe(false);
    expect(exposes('10.0.0.1', '10.0.0.1')).toBe(true);
  });

  it('exposes what any token of a list exposes', () => {
    expect(exposes('<loopback>,*.internal', 'db.internal')).toBe(true);
    expect(exposes('<loopback>,*.internal', 'localhost')).toBe(true);
  });

  it("keeps every connection but loopback the browser's own for a loopback pattern, none otherwise", () => {
    expect(exposedNetwork('<loopback>')?.proxyBypassList).toBe('*,<-loopback>');
    expect(exposedNetwork('<loopback>:3000,<loopback>:8080')?.proxyBypassList).toBe('*,<-loopback>');
    expect(exposedNetwork('<loopback>,*.internal')?.proxyBypassList).toBe('<-loopback>');
  });

  it('refuses a token that names no host', () => {
    expect(() => exposedNetwork('<loopback>,')).toThrow(WebDriverError);
    expect(() => exposedNetwork(':3000')).toThrow(/names no host/);
  });
});
