// outpost restore refuses what it cannot trust (issue 25): a damaged archive
// (cut short, a byte changed, not gzip), one that is no backup (no manifest),
// one a newer Outpost made (naming both versions), and crafted ones (a path
// out of the target, a link, an entry not in the manifest or of another size,
// a manifest asking for more room than there is) — and in every case leaves
// nothing behind: no target, no temporary folder beside it. A non-empty
// target is refused untouched. The CLI's exit codes and messages too.
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip, gzipSync } from "node:zlib";
import { pack } from "tar-stream";
import { beforeAll, describe, expect, it } from "vitest";
import { ArchiveError } from "../../src/backup/read-archive.ts";
import { restoreBackup, RestoreTargetError } from "../../src/backup/restore.ts";
import { DataDirTooNewError } from "../../src/db/data-dir-format.ts";
import { VERSION } from "../../src/version.ts";
import { ADMIN } from "../helpers/api.ts";
import { archiveEntries, makeBackup, type ArchiveEntry } from "../helpers/backups.ts";
import { runCli } from "../helpers/process.ts";
import { startTestServer } from "../helpers/server.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const tempDir = tempDirs("outpost-archive-");

type Entry = ArchiveEntry;

async function writeEntries(path: string, entries: Entry[]): Promise<void> {
  const p = pack();
  const writing = pipeline(p as unknown as NodeJS.ReadableStream, createGzip(), createWriteStream(path));
  for (const e of entries) {
    await new Promise<void>((resolve, reject) => {
      const type = (e.header.type ?? "file") as "file";
      const done = (err?: Error | null) => (err ? reject(err) : resolve());
      // links, folders, fifos carry no data
      if (type !== "file") p.entry({ ...e.header, type, size: 0 }, done);
      else p.entry({ ...e.header, type, size: e.data.length }, e.data, done);
    });
  }
  p.finalize();
  await writing;
}

describe("outpost restore refuses what it cannot trust", () => {
  const dir = tempDir();
  let good = "";
  let entries: Entry[] = [];
  let n = 0;
  /** a new target beside the others (the check for leftovers looks at this folder) */
  const targets = join(dir, "targets");
  const target = () => join(targets, `t${n++}`);
  /** an archive made from the good one's entries, changed by `edit` */
  const crafted = async (edit: (manifest: Record<string, any>, entries: Entry[]) => unknown): Promise<string> => {
    const copy = entries.map((e) => ({ header: { ...e.header }, data: e.data }));
    const manifest = JSON.parse(copy[0]!.data.toString());
    const edited = edit(manifest, copy);
    const out = Array.isArray(edited) ? (edited as Entry[]) : copy;
    if (out[0]?.header.name === "manifest.json") out[0].data = Buffer.from(JSON.stringify(manifest));
    const path = join(dir, `crafted-${n++}.tar.gz`);
    await writeEntries(path, out);
    return path;
  };
  const refused = async (archive: string, kind: new (...a: any[]) => Error, message: RegExp) => {
    const to = target();
    const err = await restoreBackup({ from: archive, dataDir: to }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(kind);
    expect((err as Error).message).toMatch(message);
    expect(existsSync(to)).toBe(false);
    // nothing half-written beside it either
    expect(readdirSync(targets).filter((f) => f.includes("restoring"))).toEqual([]);
  };

  beforeAll(async () => {
    mkdirSync(targets);
    const server = await startTestServer({ "storage.in_memory": false, "storage.data_dir": join(dir, "data") });
    try {
      const info = await makeBackup(server.urls.dashboard, ADMIN);
      good = join(dir, "data", "backups", info.name);
    } finally {
      await server.stop();
    }
    entries = await archiveEntries(good);
  });

  it("the good archive restores into a new folder and into an empty one", async () => {
    const result = await restoreBackup({ from: good, dataDir: target() });
    expect(result.manifest.files.length).toBeGreaterThan(100);
    expect(existsSync(join(result.dataDir, "pgdata", "PG_VERSION"))).toBe(true);
    // the database's empty folders are there too
    expect(existsSync(join(result.dataDir, "pgdata", "pg_tblspc"))).toBe(true);
    const empty = target();
    mkdirSync(empty);
    expect((await restoreBackup({ from: good, dataDir: empty })).dataDir).toBe(empty);
  });

  it("damaged: cut short, a byte changed, not gzip at all -> refused, nothing left", async () => {
    const bytes = readFileSync(good);
    const cut = join(dir, "cut.tar.gz");
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await refused(cut, ArchiveError, /not a readable backup archive|truncated|ends/);
    const flipped = join(dir, "flipped.tar.gz");
    const copy = Buffer.from(bytes);
    copy[Math.floor(copy.length * 0.6)]! ^= 0xff;
    writeFileSync(flipped, copy);
    await refused(flipped, ArchiveError, /not a readable backup archive|checksum mismatch|not in the manifest|bytes/);
    const noise = join(dir, "noise.tar.gz");
    writeFileSync(noise, Buffer.from("this is not a backup at all"));
    await refused(noise, ArchiveError, /not a readable backup archive/);
    const empty = join(dir, "empty.tar.gz");
    writeFileSync(empty, gzipSync(Buffer.alloc(1024)));
    await refused(empty, ArchiveError, /no manifest\.json/);
  });

  it("no manifest first, a manifest that is not one, a checksum that does not match -> refused", async () => {
    await refused(await crafted((_m, e) => e.slice(1)), ArchiveError, /not an Outpost backup: the first entry is "data\//);
    await refused(await crafted((m) => void (m.kind = "something-else")), ArchiveError, /not an Outpost backup manifest/);
    await refused(await crafted((m) => void (m.files[3].sha256 = "0".repeat(64))), ArchiveError, /checksum mismatch: the archive is damaged/);
    await refused(await crafted((m) => void m.files.pop()), ArchiveError, /is not in the manifest/);
    await refused(await crafted((_m, e) => e.slice(0, -1)), ArchiveError, /ends before 1 file\(s\) of its manifest/);
  });

  it("made by a newer Outpost (schema, data dir format, archive format) -> refused naming both versions", async () => {
    const schema = await crafted((m) => Object.assign(m, { schema: 999, outpost: "9.9.9" }));
    await refused(schema, DataDirTooNewError, new RegExp(`the archive was written by a newer Outpost: Outpost 9\\.9\\.9 \\(data dir format 1, database schema 999\\); this is Outpost ${VERSION.replace(/\./g, "\\.")} \\(data dir format 1, database schema up to \\d+\\)`));
    await refused(await crafted((m) => Object.assign(m, { dataDirFormat: 7, outpost: "3.0.0" })), DataDirTooNewError, /Outpost 3\.0\.0 \(data dir format 7/);
    await refused(await crafted((m) => Object.assign(m, { archiveFormat: 2, outpost: "2.0.0" })), DataDirTooNewError, /archive format 2; this is Outpost .* archive format 1: restore it with Outpost 2\.0\.0 or newer/);
  });

  it("crafted entries: an absolute path, .., a link, a device, a size unlike the manifest's, twice the same, a manifest path out of the dir, more than the disk holds -> refused, nothing written outside", async () => {
    const file = (name: string, data = "x") => ({ header: { name }, data: Buffer.from(data) });
    const insert = (extra: Entry) => (_m: unknown, e: Entry[]) => [e[0]!, extra, ...e.slice(1)];
    await refused(await crafted(insert(file("/tmp/outpost-escape"))), ArchiveError, /unexpected entry "\/tmp\/outpost-escape"/);
    await refused(await crafted(insert(file("data/../../outpost-escape"))), ArchiveError, /is not a plain relative path/);
    await refused(await crafted(insert(file("data/pgdata/../../escape"))), ArchiveError, /is not a plain relative path/);
    await refused(await crafted(insert({ header: { name: "data/link", type: "symlink", linkname: "/etc/passwd" }, data: Buffer.alloc(0) })), ArchiveError, /is a symlink: a backup holds only files and folders/);
    await refused(await crafted(insert({ header: { name: "data/hard", type: "link", linkname: "data/pgdata/PG_VERSION" }, data: Buffer.alloc(0) })), ArchiveError, /is a link/);
    await refused(await crafted(insert({ header: { name: "data/fifo", type: "fifo" }, data: Buffer.alloc(0) })), ArchiveError, /is a fifo/);
    await refused(await crafted((m, e) => {
      const i = e.findIndex((x) => x.header.name === "data/pgdata/PG_VERSION");
      e[i] = { header: e[i]!.header, data: Buffer.concat([e[i]!.data, Buffer.from("more")]) };
    }), ArchiveError, /PG_VERSION: \d+ bytes in the archive, \d+ in the manifest/);
    await refused(await crafted((_m, e) => [...e, e.find((x) => x.header.name === "data/pgdata/PG_VERSION")!]), ArchiveError, /comes twice/);
    await refused(await crafted((m) => void m.files.push({ path: "../escape", size: 1, sha256: "0".repeat(64) })), ArchiveError, /not an Outpost backup manifest/);
    await refused(await crafted((m) => void m.files.push({ path: "huge", size: 2 ** 52, sha256: "0".repeat(64) })), ArchiveError, /needs [\d.]+ GiB, and .* has [\d.]+ GiB free/);
    expect(existsSync("/tmp/outpost-escape")).toBe(false);
    expect(existsSync(join(dir, "outpost-escape"))).toBe(false);
  });

  it("a target that is not empty, or not a folder -> refused untouched", async () => {
    const full = target();
    mkdirSync(full);
    writeFileSync(join(full, "keep.txt"), "mine");
    await expect(restoreBackup({ from: good, dataDir: full })).rejects.toBeInstanceOf(RestoreTargetError);
    expect(readdirSync(full)).toEqual(["keep.txt"]);
    const plain = join(targets, "a-file");
    writeFileSync(plain, "x");
    await expect(restoreBackup({ from: good, dataDir: plain })).rejects.toThrow(/is not a folder/);
  });

  it("the CLI: damaged -> exit 1 naming the file, nothing restored; newer -> exit 1 with both versions; not empty, no such archive -> exit 2", async () => {
    const cut = join(dir, "cli-cut.tar.gz");
    writeFileSync(cut, readFileSync(good).subarray(0, 4096));
    const damaged = await runCli(["restore", "--from", cut, "--data-dir", join(dir, "cli-a")]);
    expect(damaged.status).toBe(1);
    expect(damaged.stderr).toMatch(/^error: .*cli-cut\.tar\.gz: .*; nothing was restored\n$/);
    expect(existsSync(join(dir, "cli-a"))).toBe(false);
    const newer = await runCli(["restore", "--from", await crafted((m) => Object.assign(m, { schema: 999, outpost: "9.9.9" })), "--data-dir", join(dir, "cli-b")]);
    expect(newer.status).toBe(1);
    expect(newer.stderr).toMatch(/Outpost 9\.9\.9 .* this is Outpost /);
    const full = join(dir, "cli-full");
    mkdirSync(full);
    writeFileSync(join(full, "x"), "x");
    const notEmpty = await runCli(["restore", "--from", good, "--data-dir", full]);
    expect(notEmpty.status).toBe(2);
    expect(notEmpty.stderr).toMatch(/is not empty/);
    expect((await runCli(["restore", "--from", join(dir, "missing.tar.gz"), "--data-dir", join(dir, "cli-c")])).status).toBe(2);
  });
});
