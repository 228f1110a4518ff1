// outpost certs: a CA, a server certificate (with SANs for the given hosts
// and IPs) and client certificates, written into a folder (default certs/),
// so mutual TLS can be turned on in two commands (see certs/README.md).
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { CliError, EXIT_USAGE } from "./exit-codes.ts";

interface CertsOptions {
  out: string;
  hosts: string;
  client: string[];
  days: string;
  force?: boolean;
}

export async function writeCerts(opts: CertsOptions): Promise<string[]> {
  const out = resolve(opts.out);
  const days = Number(opts.days);
  if (!Number.isInteger(days) || days < 1) throw new CliError(`--days must be a positive whole number, got ${JSON.stringify(opts.days)}`, EXIT_USAGE);
  const hosts = opts.hosts.split(",").map((h) => h.trim()).filter(Boolean);
  if (!hosts.length) throw new CliError("--hosts needs at least one host name or IP address", EXIT_USAGE);
  const clients = opts.client.length ? opts.client : ["client"];
  for (const c of clients) if (!/^[a-zA-Z0-9_.-]+$/.test(c)) throw new CliError(`client name ${JSON.stringify(c)} may hold only letters, digits, '.', '_' and '-'`, EXIT_USAGE);
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
  for (const name of clients) {
    const client = createClientCert(ca, name, { days });
    write(`${name}.pem`, client.cert, false);
    write(`${name}-key.pem`, client.key, true);
  }
  return written;
}

export function registerCerts(program: Command): void {
  program
    .command("certs")
    .description("create a CA, a server certificate and client certificates for TLS and mutual TLS")
    .option("--out <dir>", "folder to write the PEM files to", "certs")
    .option("--hosts <list>", "comma-separated host names and IP addresses the server certificate is for", "localhost,127.0.0.1")
    .option("--client <name>", "a client certificate to create (repeatable)", (v: string, all: string[]) => [...all, v], [] as string[])
    .option("--days <n>", "validity of the server and client certificates, in days", "825")
    .option("--force", "replace an existing CA in the folder")
    .action(async (opts: CertsOptions) => {
      const files = await writeCerts(opts);
      const out = resolve(opts.out);
      const client = opts.client[0] ?? "client";
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
