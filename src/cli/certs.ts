// outpost certs: a CA, a server certificate (with SANs for the given hosts
// and IPs) and client certificates, written into a folder (default certs/),
// so mutual TLS can be turned on in two commands (see certs/README.md).
// --ou, --dns and --uri give the client certificate named by the --client
// before them an organizational unit, DNS names and URIs (the fields a store
// can take the tenant from: <store>.auth.tenant_from_client_cert).
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { CliError, EXIT_USAGE } from "./exit-codes.ts";

/** one client certificate to write: <name>.pem and <name>-key.pem */
export interface ClientSpec {
  name: string;
  ou: string[];
  dns: string[];
  uri: string[];
}

export interface CertsOptions {
  out: string;
  hosts: string;
  /** default: one certificate named client */
  clients: ClientSpec[];
  days: string;
  force?: boolean;
}

type ClientField = "ou" | "dns" | "uri";
/** the command line's --client, --ou, --dns and --uri, in the order given */
export type ClientArg = { flag: "client" | ClientField; value: string };

/**
 * The client certificates the arguments ask for: each --ou, --dns and --uri
 * belongs to the --client before it; with no --client at all, to the default
 * certificate "client".
 */
export function clientSpecs(args: readonly ClientArg[]): ClientSpec[] {
  const specs: ClientSpec[] = [];
  const loose: ClientSpec = { name: "client", ou: [], dns: [], uri: [] };
  for (const { flag, value } of args) {
    if (flag === "client") specs.push({ name: value, ou: [], dns: [], uri: [] });
    else (specs[specs.length - 1] ?? loose)[flag].push(value);
  }
  if (specs.length === 0) return [loose];
  const early = (["ou", "dns", "uri"] as const).find((f) => loose[f].length > 0);
  if (early) throw new CliError(`--${early} ${JSON.stringify(loose[early][0])} comes before any --client: put it after the --client <name> whose certificate it is for`, EXIT_USAGE);
  return specs;
}

const LABEL = /^[a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?$/;

function checkClient(c: ClientSpec): void {
  if (!/^[a-zA-Z0-9_.-]+$/.test(c.name)) throw new CliError(`client name ${JSON.stringify(c.name)} may hold only letters, digits, '.', '_' and '-'`, EXIT_USAGE);
  for (const ou of c.ou) {
    // X.520 bounds an organizational unit to 64 characters
    if (ou === "" || ou.length > 64 || /\p{Cc}/u.test(ou)) throw new CliError(`--ou ${JSON.stringify(ou)} of client ${c.name}: 1 to 64 characters, no control characters`, EXIT_USAGE);
  }
  for (const dns of c.dns) {
    if (dns.length > 253 || !dns.split(".").every((label) => LABEL.test(label))) {
      throw new CliError(`--dns ${JSON.stringify(dns)} of client ${c.name} is not a DNS name (labels of letters, digits, '-' and '_', joined by '.')`, EXIT_USAGE);
    }
  }
  for (const uri of c.uri) {
    // a URI name is an IA5String: ASCII, and a URI has no spaces
    if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:[\x21-\x7e]+$/.test(uri) || !URL.canParse(uri)) {
      throw new CliError(`--uri ${JSON.stringify(uri)} of client ${c.name} is not an absolute URI (scheme:rest, printable ASCII, e.g. spiffe://site/tenants/team-a)`, EXIT_USAGE);
    }
  }
}

export async function writeCerts(opts: CertsOptions): Promise<string[]> {
  const out = resolve(opts.out);
  const days = Number(opts.days);
  if (!Number.isInteger(days) || days < 1) throw new CliError(`--days must be a positive whole number, got ${JSON.stringify(opts.days)}`, EXIT_USAGE);
  const hosts = opts.hosts.split(",").map((h) => h.trim()).filter(Boolean);
  if (!hosts.length) throw new CliError("--hosts needs at least one host name or IP address", EXIT_USAGE);
  const clients = opts.clients.length ? opts.clients : [{ name: "client", ou: [], dns: [], uri: [] }];
  for (const c of clients) checkClient(c);
  const twice = clients.find((c, i) => clients.findIndex((d) => d.name === c.name) !== i);
  if (twice) throw new CliError(`client ${twice.name} is named twice: each --client writes <name>.pem`, EXIT_USAGE);
  if (existsSync(join(out, "ca.pem")) && !opts.force) {
    throw new CliError(`${join(out, "ca.pem")} exists: certificates signed by it would stop being trusted; use --force to replace them`, EXIT_USAGE);
  }
  mkdirSync(out, { recursive: true });
  const written: string[] = [];
  const write = (name: string, text: string, secret: boolean) => {
    const path = join(out, name);
    writeFileSync(path, text, { mode: secret ? 0o600 : 0o644 });
    if (secret) chmodSync(path, 0o600);
    written.push(path);
  };
  // node-forge is loaded only by this command, not by every start of the server
  const { createCa, createClientCert, createServerCert } = await import("../lib/pki.ts");
  const ca = createCa("Outpost CA", { days: Math.max(days, 3650) });
  write("ca.pem", ca.cert, false);
  write("ca-key.pem", ca.key, true);
  const server = createServerCert(ca, hosts, { days });
  write("server.pem", server.cert, false);
  write("server-key.pem", server.key, true);
  for (const c of clients) {
    const client = createClientCert(ca, c.name, { days, ou: c.ou, dns: c.dns, uri: c.uri });
    write(`${c.name}.pem`, client.cert, false);
    write(`${c.name}-key.pem`, client.key, true);
  }
  return written;
}

interface CertsFlags {
  out: string;
  hosts: string;
  days: string;
  force?: boolean;
}

export function registerCerts(program: Command): void {
  // commander calls each option's parser in command-line order: the order tells which --client an --ou follows
  const args: ClientArg[] = [];
  const collect = (flag: ClientArg["flag"]) => (value: string, all: string[] | undefined) => {
    args.push({ flag, value });
    return [...(all ?? []), value];
  };
  program
    .command("certs")
    .description("create a CA, a server certificate and client certificates for TLS and mutual TLS")
    .option("--out <dir>", "folder to write the PEM files to", "certs")
    .option("--hosts <list>", "comma-separated host names and IP addresses the server certificate is for", "localhost,127.0.0.1")
    .option("--client <name>", "a client certificate to create (repeatable; default one named client)", collect("client"))
    .option("--ou <name>", "an organizational unit (OU) of the client certificate of the --client before it (repeatable)", collect("ou"))
    .option("--dns <name>", "a DNS name (subject alternative name) of the client certificate of the --client before it (repeatable)", collect("dns"))
    .option("--uri <uri>", "a URI (subject alternative name, e.g. spiffe://site/tenants/team-a) of the client certificate of the --client before it (repeatable)", collect("uri"))
    .option("--days <n>", "validity of the server and client certificates, in days", "825")
    .option("--force", "replace an existing CA in the folder")
    .action(async (flags: CertsFlags) => {
      const opts: CertsOptions = { out: flags.out, hosts: flags.hosts, days: flags.days, force: flags.force, clients: clientSpecs(args.splice(0)) };
      const files = await writeCerts(opts);
      const out = resolve(opts.out);
      const client = opts.clients[0]?.name ?? "client";
      process.stdout.write(
        files.map((f) => `wrote ${f}`).join("\n") +
          `\n\nturn on mutual TLS for the log and metrics stores:\n` +
          `  outpost serve --http-tls-cert-path ${join(out, "server.pem")} --http-tls-key-path ${join(out, "server-key.pem")} \\\n` +
          `    --http-tls-client-auth RequireAndVerifyClientCert --http-tls-ca-path ${join(out, "ca.pem")}\n` +
          `then, as a client:\n` +
          `  curl --cacert ${join(out, "ca.pem")} --cert ${join(out, `${client}.pem`)} --key ${join(out, `${client}-key.pem`)} -H 'X-Scope-OrgID: tenant1' https://localhost:3100/svc/api/v1/labels\n`,
      );
    });
}
