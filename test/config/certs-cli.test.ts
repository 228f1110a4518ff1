// outpost certs writes a CA, a server and a client certificate that curl
// accepts against a server started with them (mutual TLS in two commands).
import { execFile, spawnSync } from "node:child_process";
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

  it("the real product's single-dash TLS flags are accepted", () => {
    const r = runToExit(bunBin, [main, "serve", "--in-memory", "-server.http-tls-client-auth=RequireAndVerifyClientCert"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("client certificates need server TLS first");
  });
});
