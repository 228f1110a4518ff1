// Certificates for TLS and mutual TLS, made with node-forge: a CA, server
// certificates with subject alternative names, and client certificates the
// CA signs (with, when asked, organizational units and DNS and URI subject
// alternative names: the fields a store may take a tenant from,
// store-access/cert-tenant.ts). Used by `outpost certs` and by tests.
import forge from "node-forge";

export interface KeyPairPem {
  cert: string;
  key: string;
}

export interface CertOptions {
  /** validity in days (default 825, the longest browsers accept for servers) */
  days?: number;
}

export interface ClientCertOptions extends CertOptions {
  /** organizational units (OU) of the subject, in this order */
  ou?: readonly string[];
  /** DNS names, as subject alternative names */
  dns?: readonly string[];
  /** URIs (e.g. spiffe://site/tenants/team-a), as subject alternative names, after the DNS names */
  uri?: readonly string[];
}

const { pki, md } = forge;

function serial(): string {
  // positive, 16 random bytes in hex
  return "01" + forge.util.bytesToHex(forge.random.getBytesSync(15));
}

function base(commonName: string, days: number, publicKey: forge.pki.PublicKey, units: readonly string[] = []) {
  const cert = pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serial();
  const now = new Date();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + days * 86_400_000);
  cert.setSubject([
    { name: "commonName", value: commonName },
    { name: "organizationName", value: "Outpost" },
    // UTF8String: PrintableString (forge's default) has no '_', '!', '*' or '\'' (tenant id characters)
    ...units.map((value) => ({ name: "organizationalUnitName", value, valueTagClass: forge.asn1.Type.UTF8 as number })),
  ]);
  return cert;
}

const pem = (cert: forge.pki.Certificate, keys: forge.pki.rsa.KeyPair): KeyPairPem => ({
  cert: pki.certificateToPem(cert),
  key: pki.privateKeyToPem(keys.privateKey),
});

export function createCa(commonName = "Outpost CA", options: CertOptions = {}): KeyPairPem {
  const keys = pki.rsa.generateKeyPair(2048);
  const cert = base(commonName, options.days ?? 3650, keys.publicKey);
  cert.setIssuer(cert.subject.attributes);
  cert.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  cert.sign(keys.privateKey, md.sha256.create());
  return pem(cert, keys);
}

function signed(ca: KeyPairPem, commonName: string, days: number, extensions: object[], units: readonly string[] = []): KeyPairPem {
  const caCert = pki.certificateFromPem(ca.cert);
  const caKey = pki.privateKeyFromPem(ca.key);
  const keys = pki.rsa.generateKeyPair(2048);
  const cert = base(commonName, days, keys.publicKey, units);
  cert.setIssuer(caCert.subject.attributes);
  // the authority key id must be the CA's own (forge's `true` would take this certificate's key)
  const authorityKeyId = caCert.generateSubjectKeyIdentifier().getBytes();
  cert.setExtensions([{ name: "basicConstraints", cA: false }, { name: "authorityKeyIdentifier", keyIdentifier: authorityKeyId }, ...extensions]);
  cert.sign(caKey, md.sha256.create());
  return pem(cert, keys);
}

/** a server certificate for host names and IP addresses (both become SANs) */
export function createServerCert(ca: KeyPairPem, hosts: string[], options: CertOptions = {}): KeyPairPem {
  const altNames = hosts.map((h) => (/^[\d.]+$|:/.test(h) ? { type: 7, ip: h } : { type: 2, value: h }));
  return signed(ca, hosts[0] ?? "localhost", options.days ?? 825, [
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames },
  ]);
}

/** a client certificate for `commonName`; `ou`, `dns` and `uri` add organizational units and subject alternative names */
export function createClientCert(ca: KeyPairPem, commonName: string, options: ClientCertOptions = {}): KeyPairPem {
  const altNames = [...(options.dns ?? []).map((value) => ({ type: 2, value })), ...(options.uri ?? []).map((value) => ({ type: 6, value }))];
  return signed(
    ca,
    commonName,
    options.days ?? 825,
    [
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", clientAuth: true },
      ...(altNames.length ? [{ name: "subjectAltName", altNames }] : []),
    ],
    options.ou ?? [],
  );
}

/** a certificate signed by its own key: for tests of clients the CA does not know */
export function createSelfSigned(commonName: string): KeyPairPem {
  const keys = pki.rsa.generateKeyPair(2048);
  const cert = base(commonName, 30, keys.publicKey);
  cert.setIssuer(cert.subject.attributes);
  cert.setExtensions([{ name: "extKeyUsage", clientAuth: true }]);
  cert.sign(keys.privateKey, md.sha256.create());
  return pem(cert, keys);
}
