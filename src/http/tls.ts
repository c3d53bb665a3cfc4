import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import type { Http2Session } from 'node:http2';
import { Socket } from 'node:net';
import { ConfigError, type TlsFiles } from '../config.ts';

/** A certificate chain and its private key, as PEM, read once at start. */
export interface TlsCredentials {
  readonly cert: Buffer;
  readonly key: Buffer;
}

/**
 * Reads TLS_CERT_FILE and TLS_KEY_FILE and checks that they are what they say and belong together,
 * so a mistake stops the start with its cause instead of failing every handshake later.
 */
export function readTlsCredentials(files: TlsFiles): TlsCredentials {
  const cert = readPem(files.certFile, 'TLS_CERT_FILE');
  const key = readPem(files.keyFile, 'TLS_KEY_FILE');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new ConfigError(`TLS_CERT_FILE (${files.certFile}) does not hold a PEM certificate`);
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ConfigError(`TLS_KEY_FILE (${files.keyFile}) does not hold an unencrypted PEM private key`);
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new ConfigError(`TLS_KEY_FILE (${files.keyFile}) is not the private key of the certificate in TLS_CERT_FILE (${files.certFile})`);
  }
  return { cert, key };
}

function readPem(file: string, name: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new ConfigError(`${name} (${file}) cannot be read: ${(error as Error).message}`);
  }
}

/**
 * Fastify's options for HTTPS with HTTP/2. Browsers open only six HTTP/1.1 connections per origin,
 * and Sanity Studio keeps about seven listeners open: over HTTP/2 they share one connection.
 * HTTP/1.1 is still negotiated through ALPN (WebSocket upgrades, clients without HTTP/2).
 */
export function secureServerOptions(credentials: TlsCredentials, idleTimeoutMs: number) {
  return {
    http2: true as const,
    https: {
      allowHTTP1: true,
      cert: credentials.cert,
      key: credentials.key,
      // Each stream may hold a request open; bound them per connection as nginx does (128).
      settings: { maxConcurrentStreams: 128 },
    },
    // An HTTP/2 connection with no frames either way for this long is closed (REQUEST_IDLE_TIMEOUT_MS):
    // listeners send a keep-alive every 25 s, so an open Studio never goes quiet that long.
    http2SessionTimeout: idleTimeoutMs,
  };
}

/**
 * Node destroys an HTTP/2 connection that carried no frame for the server's timeout
 * (REQUEST_IDLE_TIMEOUT_MS), even while a response is still being computed on it (a long import or
 * query). Closing it instead lets its streams finish and takes no new ones; a stream whose request
 * stalls has its own timer (request-timeouts.ts). HTTP/1.1 sockets time out as before.
 */
export function closeIdleSessionsGracefully(server: EventEmitter): void {
  server.on('timeout', (target: Socket | Http2Session) => {
    if (target instanceof Socket) target.destroy();
    else target.close();
  });
}
