// outpost certs writes a CA, a server and a client certificate that curl
// accepts against a server started with them (mutual TLS in two commands);
// --ou, --dns and --uri put an organizational unit and subject alternative
// names into the client certificate of the --client before them.
import { execFile, spawnSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bunBin, repoRoot } from "../helpers/paths.ts";
import { runToExit } from "../helpers/process.ts";
import { startTestServer } from "../helpers/server.ts";

describe("outpost certs", () => {
  const dir = mkdtempSync(join(tmpdir(), "outpost-certs-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const main = join(repoRoot, "src", "main.ts");

  it("writes usable certificates; curl with the client certificate gets through RequireAndVerifyClientCert", async () => {
    const out = join(dir, "certs");
    const r = runToExit(bunBin, [main, "certs", "--out", out, "--hosts", "localhost,127.0.0.1", "--client", "shipper"], { timeoutMs: 60_000 });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("--http-tls-client-auth RequireAndVerifyClientCert");
    for (const key of ["ca-key.pem", "server-key.pem", "shipper-key.pem"]) expect(statSync(join(out, key)).mode & 0o777).toBe(0o600);
    const again = runToExit(bunBin, [main, "certs", "--out", out], { timeoutMs: 60_000 });
    expect(again.status).toBe(2);
    expect(again.stderr).toContain("use --force");

    const s = await startTestServer({
      "server.http_tls_config.cert_file": join(out, "server.pem"),
      "server.http_tls_config.key_file": join(out, "server-key.pem"),
      "server.http_tls_config.client_auth_type": "RequireAndVerifyClientCert",
      "server.http_tls_config.client_ca_file": join(out, "ca.pem"),
    });
    try {
      const url = `${s.urls.logs!.replace("127.0.0.1", "localhost")}/svc/api/v1/labels`;
      // curl when the machine has it (CI may have only Node): the same files through node:https otherwise.
      // Asynchronous either way: the server runs in this process and must keep answering.
      const hasCurl = spawnSync("curl", ["--version"]).status === 0;
      const call = (withCert: boolean) =>
        new Promise<string>((resolve) => {
          if (hasCurl) {
            const cert = withCert ? ["--cert", join(out, "shipper.pem"), "--key", join(out, "shipper-key.pem")] : [];
            execFile("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", join(out, "ca.pem"), ...cert, "-H", "X-Scope-OrgID: t1", url], { timeout: 20_000 }, (_err, stdout) => resolve(String(stdout)));
            return;
          }
          const read = (f: string) => readFileSync(join(out, f));
          const req = request(url, { ca: read("ca.pem"), ...(withCert ? { cert: read("shipper.pem"), key: read("shipper-key.pem") } : {}), headers: { "X-Scope-OrgID": "t1" } }, (res) => {
            res.resume();
            resolve(String(res.statusCode));
          });
          req.on("error", () => resolve("000"));
          req.end();
        });
      expect(await call(true)).toBe("200");
      expect(await call(false)).toBe("000");
    } finally {
      await s.stop();
    }
  }, 90_000);

  it("--ou, --dns and --uri go into the client certificate of the --client before them", () => {
    const out = join(dir, "named");
    const r = runToExit(
      bunBin,
      [main, "certs", "--out", out, "--client", "team-a", "--ou", "team_a", "--dns", "team-a.example", "--uri", "spiffe://site/tenants/team-a", "--dns", "b.example",
        "--client", "plain", "--client", "units", "--ou", "first", "--ou", "second"],
      { timeoutMs: 60_000 },
    );
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const cert = (name: string) => new X509Certificate(readFileSync(join(out, `${name}.pem`)));
    const ca = cert("ca");
    const teamA = cert("team-a");
    expect(teamA.checkIssued(ca)).toBe(true);
    expect(teamA.subject.split("\n")).toEqual(["CN=team-a", "O=Outpost", "OU=team_a"]);
    // DNS names first, then URIs, each in the order given
    expect(teamA.subjectAltName).toBe("DNS:team-a.example, DNS:b.example, URI:spiffe://site/tenants/team-a");
    const plain = cert("plain");
    expect(plain.subject.split("\n")).toEqual(["CN=plain", "O=Outpost"]);
    expect(plain.subjectAltName).toBeUndefined();
    expect(cert("units").subject.split("\n")).toEqual(["CN=units", "O=Outpost", "OU=first", "OU=second"]);

    // with no --client, they belong to the default certificate "client"
    const lone = join(dir, "lone");
    const d = runToExit(bunBin, [main, "certs", "--out", lone, "--ou", "team-z", "--uri", "urn:example:team-z"], { timeoutMs: 60_000 });
    expect(d.status).toBe(0);
    const client = new X509Certificate(readFileSync(join(lone, "client.pem")));
    expect(client.subject.split("\n")).toEqual(["CN=client", "O=Outpost", "OU=team-z"]);
    expect(client.subjectAltName).toBe("URI:urn:example:team-z");
  }, 90_000);

  it("--ou, --dns and --uri that cannot be used are refused before anything is written", () => {
    const out = join(dir, "refused");
    const refused = (args: string[], message: string) => {
      const r = runToExit(bunBin, [main, "certs", "--out", out, ...args], { timeoutMs: 60_000 });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(message);
    };
    refused(["--ou", "team-a", "--client", "a"], '--ou "team-a" comes before any --client: put it after the --client <name> whose certificate it is for');
    refused(["--client", "a", "--dns", "not a name"], '--dns "not a name" of client a is not a DNS name');
    refused(["--client", "a", "--dns", "-a.example"], '--dns "-a.example" of client a is not a DNS name');
    refused(["--client", "a", "--uri", "team-a"], '--uri "team-a" of client a is not an absolute URI');
    refused(["--client", "a", "--uri", "spiffe://site/tenants/tëam"], "is not an absolute URI");
    refused(["--client", "a", "--ou", ""], '--ou "" of client a: 1 to 64 characters');
    refused(["--client", "a", "--ou", "x".repeat(65)], "1 to 64 characters");
    refused(["--client", "a", "--client", "a"], "client a is named twice");
    expect(() => statSync(out)).toThrow();
  }, 90_000);

  it("the real product's single-dash TLS flags are accepted", () => {
    const r = runToExit(bunBin, [main, "serve", "--in-memory", "-server.http-tls-client-auth=RequireAndVerifyClientCert"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("client certificates need server TLS first");
  });
});
