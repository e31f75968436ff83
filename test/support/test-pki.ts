/**
 * A throwaway certificate authority for TLS tests, made with the openssl CLI: a server certificate for
 * 127.0.0.1 and a client certificate, both signed by it, as a Kubernetes API server and its kubeconfig
 * users have them. Node can make keys but not X.509 certificates, hence the CLI.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestPki {
  /** PEM texts. */
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

/** Writes the keys and certificates into `dir` (a temp dir the caller removes) and returns their PEM. */
export function makeTestPki(dir: string, clientName = 'gridgate'): TestPki {
  const at = (file: string) => join(dir, file);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...newKey,
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.crt'),
    '-days',
    '1',
    '-subj',
    '/CN=test-ca',
  );
  const issue = (name: string, subject: string, extensions: string) => {
    openssl('req', ...newKey, '-keyout', at(`${name}.key`), '-out', at(`${name}.csr`), '-subj', subject);
    writeFileSync(at(`${name}.ext`), extensions);
    openssl(
      'x509',
      '-req',
      '-in',
      at(`${name}.csr`),
      '-CA',
      at('ca.crt'),
      '-CAkey',
      at('ca.key'),
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      at(`${name}.ext`),
      '-out',
      at(`${name}.crt`),
    );
  };
  issue('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  // Kubernetes reads the user from the client certificate's CN and its groups from O.
  issue('client', `/O=gridgate/CN=${clientName}`, 'extendedKeyUsage=clientAuth\n');
  const pem = (file: string) => readFileSync(at(file), 'utf8');
  return {
    ca: pem('ca.crt'),
    serverCert: pem('server.crt'),
    serverKey: pem('server.key'),
    clientCert: pem('client.crt'),
    clientKey: pem('client.key'),
  };
}
