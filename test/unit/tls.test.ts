import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { ensureLocalCertificate } from '../../src/http/local-certificate.ts';
import { readTlsCredentials } from '../../src/http/tls.ts';

const dir = mkdtempSync(join(tmpdir(), 'cms-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('TLS configuration', () => {
  it('is off without TLS_* and needs both files together', () => {
    expect(loadConfig({}).tls).toBeUndefined();
    expect(loadConfig({ TLS_CERT_FILE: 'a.pem', TLS_KEY_FILE: 'b.pem' }).tls).toEqual({ certFile: join(process.cwd(), 'a.pem'), keyFile: join(process.cwd(), 'b.pem') });
    expect(() => loadConfig({ TLS_CERT_FILE: 'a.pem' })).toThrow(ConfigError);
    expect(() => loadConfig({ TLS_KEY_FILE: 'b.pem' })).toThrow(/TLS_CERT_FILE and TLS_KEY_FILE must be set together/);
  });

  it('STUDIO_DIR is resolved, unset by default', () => {
    expect(loadConfig({}).studioDir).toBeUndefined();
    expect(loadConfig({ STUDIO_DIR: 'studio/dist' }).studioDir).toBe(join(process.cwd(), 'studio/dist'));
  });

  it('refuses files that cannot be read, are not PEM, or do not belong together, naming the variable', async () => {
    const one = await ensureLocalCertificate(join(dir, 'one'));
    const two = await ensureLocalCertificate(join(dir, 'two'));
    expect(() => readTlsCredentials({ certFile: join(dir, 'missing.pem'), keyFile: one.keyFile })).toThrow(/TLS_CERT_FILE .* cannot be read/);
    const garbage = join(dir, 'garbage.pem');
    writeFileSync(garbage, 'not a certificate');
    expect(() => readTlsCredentials({ certFile: garbage, keyFile: one.keyFile })).toThrow(/TLS_CERT_FILE .* does not hold a PEM certificate/);
    expect(() => readTlsCredentials({ certFile: one.certFile, keyFile: garbage })).toThrow(/TLS_KEY_FILE .* does not hold/);
    expect(() => readTlsCredentials({ certFile: one.certFile, keyFile: two.keyFile })).toThrow(/is not the private key of the certificate/);
    expect(readTlsCredentials(one).cert.toString()).toContain('BEGIN CERTIFICATE');
  });
});

describe('the local certificate (cms studio)', () => {
  it('is made once for localhost and the loopback addresses, its key readable by its owner only', async () => {
    const tlsDir = join(dir, 'made');
    const made = await ensureLocalCertificate(tlsDir);
    expect(made.created).toBe(true);
    const certificate = new X509Certificate(readFileSync(made.certFile));
    expect(certificate.subjectAltName).toContain('DNS:localhost');
    expect(certificate.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(certificate.checkHost('localhost')).toBe('localhost');
    expect(statSync(made.keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(tlsDir).mode & 0o777).toBe(0o700);

    const again = await ensureLocalCertificate(tlsDir);
    expect(again.created).toBe(false);
    expect(readFileSync(again.certFile)).toEqual(readFileSync(made.certFile));
  });

  it('is replaced when it is about to expire', async () => {
    const tlsDir = join(dir, 'renewed');
    const made = await ensureLocalCertificate(tlsDir);
    const later = new Date(made.validTo.getTime() - 86_400_000);
    const renewed = await ensureLocalCertificate(tlsDir, later);
    expect(renewed.created).toBe(true);
    expect(renewed.validTo.getTime()).toBeGreaterThan(made.validTo.getTime());
  });
});
