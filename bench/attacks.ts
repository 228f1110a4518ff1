// Issue 16's attacks against the compiled binary: for each, the answer, the
// longest wait of a probe (dashboard /api/health, both stores' /ready, a push
// from another tenant, every 100 ms) against the 500 ms target, and
// how much the process grew (RSS). Printed as a table, never asserted. An
// attack that leaves the server unable to answer within 30 s is recorded and
// the server restarted.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ATTACKS, sendAttack, startProbing } from "../test/fuzz/support/attacks.ts";
import { report, rssMiB, startBinary, stopBinary, type Started } from "./lib.ts";

const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error("dist/outpost is missing: run npm run build first");
const TARGET_MS = 500;
const ATTACK_DEADLINE_MS = Number(process.env.ATTACK_DEADLINE_MS ?? 30_000);
const args = ["serve", "--in-memory", "--http-port", "0", "--logs-port", "0", "--metrics-port", "0", "--log-level", "error"];

let server: Started = await startBinary(binary, args);
const rows: string[][] = [];
try {
  for (const attack of ATTACKS) {
    const urls = { dashboard: server.urls.dashboard!, logs: server.urls.logs!, metrics: server.urls.metrics! };
    await attack.setup?.(urls);
    const pid = server.child.pid;
    const before = rssMiB(pid);
    let peak = before;
    const sampler = setInterval(() => { peak = Math.max(peak, rssMiB(pid)); }, 50);
    // a probe that waits 5 s has failed: the attack is abandoned and the server restarted
    const probing = startProbing(urls, { everyMs: 100, deadlineMs: 5_000 });
    const answer = await sendAttack(urls, attack, ATTACK_DEADLINE_MS, probing.firstFailure);
    const probes = await probing.stop();
    clearInterval(sampler);
    peak = Math.max(peak, rssMiB(pid));
    const hung = answer.status === undefined || probes.failed.length > 0;
    const expected = attack.expect.includes(answer.status ?? -1);
    report.figure(`${attack.name}: longest probe wait`, probes.maxMs, "ms", `<= ${TARGET_MS}`, { answer: answer.status ?? String(answer.error), expected, hung, attackMs: answer.ms });
    report.figure(`${attack.name}: RSS growth`, peak - before, "MiB");
    rows.push([
      attack.name,
      String(answer.status ?? answer.error),
      expected ? "yes" : "NO",
      `${Math.round(answer.ms)}`,
      probes.failed.length > 0 ? `>= ${Math.round(probes.maxMs)}` : `${Math.round(probes.maxMs)}`,
      probes.maxMs <= TARGET_MS && !hung ? "yes" : "NO",
      `${Math.round(peak - before)}`,
    ]);
    if (hung) {
      await stopBinary(server.child, "SIGKILL");
      server = await startBinary(binary, args);
    }
  }
} finally {
  await stopBinary(server.child, "SIGKILL");
}

const head = ["attack", "answer", "expected", "attack ms", "max probe ms", `probes <= ${TARGET_MS} ms`, "RSS growth MiB"];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
console.log(line(head));
for (const r of rows) console.log(line(r));
report.save();
