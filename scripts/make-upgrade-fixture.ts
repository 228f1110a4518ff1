// Makes the upgrade test's fixture: a data dir written by an older Outpost.
//
//   git worktree add --detach /tmp/old-outpost <commit>
//   ln -s "$PWD/node_modules" /tmp/old-outpost/node_modules
//   bun scripts/make-upgrade-fixture.ts /tmp/old-outpost <name>
//   git worktree remove --force /tmp/old-outpost
//
// Runs that tree's source under Bun on a new data dir, writes through the
// three APIs (test/helpers/three-apis.ts), stops it cleanly (SIGTERM, as an
// upgrade stops a server) and writes test/fixtures/<name>.tar.br (the data
// dir, without its lock) and <name>.json (when the data was written, and the
// answers the older Outpost gave). test/db/upgrade.test.ts opens it with the
// current code. Brotli at its best (the runtimes' own zlib reads it): a
// PGlite data dir is ~40 MB, 4.9 MB gzipped, 1.7 MB so.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { brotliCompressSync, constants } from "node:zlib";
import { readAll, writeAll } from "../test/helpers/three-apis.ts";

const [tree, name] = process.argv.slice(2);
if (!tree || !name) {
  console.error("usage: bun scripts/make-upgrade-fixture.ts <outpost source tree> <fixture name>");
  process.exit(2);
}
const root = resolve(import.meta.dirname, "..");
const work = mkdtempSync(join(tmpdir(), "outpost-fixture-"));
const dataDir = join(work, "data");
const commit = spawnSync("git", ["-C", tree, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).stdout.trim();

const child = spawn(process.execPath, [join(tree, "src", "main.ts"), "serve", "--data-dir", dataDir, "--http-port", "0", "--logs-port", "0", "--metrics-port", "0"], {
  cwd: work,
  stdio: ["ignore", "pipe", "inherit"],
});
const urls: Record<string, string> = {};
await new Promise<void>((done, fail) => {
  let out = "";
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
    for (const m of out.matchAll(/^(\S+) listening on (\S+)$/gm)) urls[m[1]!] = m[2]!;
    if (urls.dashboard && urls.logs && urls.metrics) done();
  });
  child.once("exit", (code) => fail(new Error(`exited with ${code} before listening`)));
});
const all = { dashboard: urls.dashboard!, logs: urls.logs!, metrics: urls.metrics! };
// whole minutes, half an hour ago: inside every window the stores accept
const t0 = Math.floor((Date.now() - 30 * 60_000) / 60_000) * 60_000;
await writeAll(all, "old", t0);
const answers = await readAll(all, t0);
await new Promise<void>((done) => {
  child.once("exit", () => done());
  child.kill("SIGTERM");
});

rmSync(join(dataDir, "outpost.lock"), { force: true });
const archive = join(root, "test", "fixtures", `${name}.tar.br`);
const tarFile = join(work, "data.tar");
const tar = spawnSync("tar", ["-cf", tarFile, "-C", dataDir, "."], { stdio: "inherit" });
if (tar.status !== 0) throw new Error("tar failed");
const raw = readFileSync(tarFile);
const params = { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length };
writeFileSync(archive, brotliCompressSync(raw, { params }));
writeFileSync(join(root, "test", "fixtures", `${name}.json`), `${JSON.stringify({ commit, t0, answers }, null, 1)}\n`);
rmSync(work, { recursive: true, force: true });
console.log(`${archive}: ${(statSync(archive).size / 1024).toFixed(0)} KiB (commit ${commit}, t0 ${new Date(t0).toISOString()})`);
