import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { TlsFiles } from '../config.ts';

const VALID_DAYS = 365;
/** A certificate this close to its end is replaced before it is used. */
const RENEW_BEFORE_MS = 7 * 86_400_000;

export interface LocalCertificate extends TlsFiles {
  /** True when this call made it (none was there, or the old one was about to expire). */
  readonly created: boolean;
  readonly validTo: Date;
}

/**
 * A self-signed certificate for localhost, 127.0.0.1 and ::1 in `dir` (DATA_DIR/tls), made on
 * first use and kept, so the browser's exception for it lasts. Node cannot write X.509
 * certificates itself; `selfsigned` does it in JavaScript (WebCrypto and pkijs), with no
 * dependency on an openssl binary. The key is written owner-readable only and never leaves `dir`.
 */
export async function ensureLocalCertificate(dir: string, now: Date = new Date()): Promise<LocalCertificate> {
  const certFile = join(dir, 'localhost-cert.pem');
  const keyFile = join(dir, 'localhost-key.pem');
  const existing = usableCertificate(certFile, keyFile, now);
  if (existing) return { certFile, keyFile, created: false, validTo: existing };

  const notAfter = new Date(now.getTime() + VALID_DAYS * 86_400_000);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: notAfter,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  // Written aside and renamed: two starts at once never read half a file.
  writeAtomically(keyFile, pems.private, 0o600);
  writeAtomically(certFile, pems.cert, 0o644);
  return { certFile, keyFile, created: true, validTo: notAfter };
}

/** The end of validity of a readable, matching pair that is not about to expire; else undefined. */
function usableCertificate(certFile: string, keyFile: string, now: Date): Date | undefined {
  try {
    const certificate = new X509Certificate(readFileSync(certFile));
    if (!certificate.checkPrivateKey(createPrivateKey(readFileSync(keyFile)))) return undefined;
    const validTo = new Date(certificate.validTo);
    return validTo.getTime() - now.getTime() > RENEW_BEFORE_MS ? validTo : undefined;
  } catch {
    return undefined;
  }
}

function writeAtomically(file: string, text: string, mode: number): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode });
  renameSync(temporary, file);
}
