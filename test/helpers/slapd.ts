// A real OpenLDAP server (Debian's slapd) for a test file: its own config in a
// temp dir (mdb backend, the memberof overlay), plain LDAP with StartTLS and
// LDAPS on free ports of 127.0.0.1, certificates from `outpost certs`
// (writeCerts: a CA, the server's certificate and a client certificate),
// seeded with ldapadd. With requireClientCert every TLS connection (LDAPS and
// StartTLS) must present a client certificate of that CA (TLSVerifyClient
// demand); plain LDAP (the seeding) is not affected. Undefined where slapd is
// not installed.
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "ldapts";
import { writeCerts } from "../../src/cli/certs.ts";
import { freePort } from "./browser.ts";

const run = promisify(execFile);

export const SLAPD = ["/usr/sbin/slapd"].find((p) => existsSync(p));
export const LDAP_TOOLS = existsSync("/usr/bin/ldapadd") && existsSync("/usr/bin/ldapmodify");
export const SLAPD_SKIPPED = "skipped: no /usr/sbin/slapd or ldap-utils; apt-get install slapd ldap-utils, as .ci/run does";

export const SUFFIX = "dc=example,dc=org";
export const ROOT_DN = `cn=admin,${SUFFIX}`;
export const ROOT_PW = "slapd-root-secret";

export interface Slapd {
  ldapPort: number;
  ldapsPort: number;
  certDir: string;
  /** a client certificate and key (PEM files) signed by the CA slapd trusts */
  clientCert: string;
  clientKey: string;
  /** ldapadd / ldapmodify with the root DN */
  apply(ldif: string, modify?: boolean): Promise<void>;
  /** ldapdelete of DNs */
  remove(...dns: string[]): Promise<void>;
  stop(): Promise<void>;
  log(): string;
}

export interface SlapdOptions {
  /** TLSVerifyClient demand: a TLS client without a certificate of the CA is refused in the handshake */
  requireClientCert?: boolean;
}

export async function startSlapd(dir: string, options: SlapdOptions = {}): Promise<Slapd> {
  const certDir = join(dir, "certs");
  await writeCerts({ out: certDir, hosts: "127.0.0.1,localhost", clients: [{ name: "ldap-client", ou: [], dns: [], uri: [] }], days: "2" });
  const db = join(dir, "db");
  mkdirSync(db, { recursive: true });
  const conf = join(dir, "slapd.conf");
  writeFileSync(conf, [
    "include /etc/ldap/schema/core.schema",
    "include /etc/ldap/schema/cosine.schema",
    "include /etc/ldap/schema/inetorgperson.schema",
    "include /etc/ldap/schema/nis.schema",
    `pidfile ${join(dir, "slapd.pid")}`,
    "modulepath /usr/lib/ldap",
    "moduleload back_mdb",
    "moduleload memberof",
    `TLSCACertificateFile ${join(certDir, "ca.pem")}`,
    `TLSCertificateFile ${join(certDir, "server.pem")}`,
    `TLSCertificateKeyFile ${join(certDir, "server-key.pem")}`,
    ...(options.requireClientCert ? ["TLSVerifyClient demand"] : []),
    "database mdb",
    "maxsize 10485760",
    `suffix "${SUFFIX}"`,
    `rootdn "${ROOT_DN}"`,
    `rootpw ${ROOT_PW}`,
    `directory ${db}`,
    "overlay memberof",
    "memberof-refint TRUE",
    "",
  ].join("\n"));
  const ldapPort = await freePort();
  const ldapsPort = await freePort();
  let output = "";
  const child: ChildProcess = spawn(SLAPD!, ["-d", "0", "-h", `ldap://127.0.0.1:${ldapPort}/ ldaps://127.0.0.1:${ldapsPort}/`, "-f", conf], { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  let exited = false;
  child.once("exit", () => (exited = true));
  // ready when the root DN binds
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) throw new Error(`slapd exited: ${output.slice(-2000)}`);
    const c = new Client({ url: `ldap://127.0.0.1:${ldapPort}`, timeout: 1000, connectTimeout: 1000 });
    try {
      await c.bind(ROOT_DN, ROOT_PW);
      await c.unbind();
      break;
    } catch {
      await c.unbind().catch(() => {});
      if (Date.now() > deadline) throw new Error(`slapd did not answer within 30 s: ${output.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const url = `ldap://127.0.0.1:${ldapPort}`;
  const ldif = (text: string) => {
    const f = join(dir, `change-${Date.now()}-${Math.random().toString(36).slice(2)}.ldif`);
    writeFileSync(f, text);
    return f;
  };
  return {
    ldapPort,
    ldapsPort,
    certDir,
    clientCert: join(certDir, "ldap-client.pem"),
    clientKey: join(certDir, "ldap-client-key.pem"),
    async apply(text, modify = false) {
      await run(modify ? "ldapmodify" : "ldapadd", ["-x", "-H", url, "-D", ROOT_DN, "-w", ROOT_PW, "-f", ldif(text)]);
    },
    async remove(...dns) {
      await run("ldapdelete", ["-x", "-H", url, "-D", ROOT_DN, "-w", ROOT_PW, ...dns]);
    },
    log: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
        child.once("exit", () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill("SIGTERM");
      }),
  };
}
