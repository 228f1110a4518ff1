// Upgrades (issue 25): a data dir an older Outpost wrote is migrated at start
// and answers as that Outpost did; a data dir a newer Outpost wrote (its
// format marker names a newer format or schema) is refused with both
// versions before anything is written to it.
//
// The fixture is a data dir written by the code of commit 4712816 (issue 22's
// last, database schema 14, before format markers) through the three APIs
// and stopped cleanly, with the answers that code gave
// (scripts/make-upgrade-fixture.ts makes it; brotli, as the runtimes read it).
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { brotliDecompress } from "node:zlib";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { extract } from "tar-stream";
import { describe, expect, it } from "vitest";
import { DATA_DIR_FORMAT, DataDirTooNewError, FORMAT_FILE } from "../../src/db/data-dir-format.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { openDatabase } from "../../src/db/open.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { VERSION } from "../../src/version.ts";
import { repoRoot } from "../helpers/paths.ts";
import { freePortArgs, runCli } from "../helpers/process.ts";
import { startTestServer } from "../helpers/server.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";
import { readAll } from "../helpers/three-apis.ts";

const FIXTURE = join(repoRoot, "test", "fixtures", "datadir-4712816");
const tempDir = tempDirs("outpost-upgrade-");
const latest = Math.max(...migrations.map((m) => m.version));

/** the fixture's data dir, extracted into a new folder */
async function fixtureDataDir(): Promise<string> {
  const dir = join(tempDir(), "data");
  mkdirSync(dir);
  const tar = await promisify(brotliDecompress)(readFileSync(`${FIXTURE}.tar.br`));
  const ex = extract();
  const reading = pipeline(Readable.from([tar]), ex as unknown as NodeJS.WritableStream);
  for await (const entry of ex) {
    const name = entry.header.name.replace(/^\.\//, "");
    const parts: Buffer[] = [];
    for await (const chunk of entry as unknown as AsyncIterable<Buffer>) parts.push(chunk);
    if (!name) continue;
    if (entry.header.type === "directory") mkdirSync(join(dir, name), { recursive: true });
    else if (entry.header.type === "file") {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), Buffer.concat(parts), { mode: 0o600 });
    }
  }
  await reading;
  return dir;
}

/** every file under dir with its size and modification time: what "nothing was written" compares */
function state(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out.push(`${p} ${st.size} ${st.mtimeMs}`);
    }
  };
  walk(dir);
  return out;
}

describe("upgrades", () => {
  it("the data dir of an older Outpost (schema 14, no format marker) is migrated at start and answers as that Outpost did", async () => {
    const fixture = JSON.parse(readFileSync(`${FIXTURE}.json`, "utf8")) as { t0: number; answers: Record<string, unknown> };
    const dir = await fixtureDataDir();
    expect(existsSync(join(dir, FORMAT_FILE))).toBe(false);
    // the fixture's data is older than the default retention by now: kept for the comparison
    const server = await startTestServer({ "storage.in_memory": false, "storage.data_dir": dir, "logs.limits.retention_period": "0s", "metrics.retention_period": "0s" });
    try {
      const answers = await readAll({ dashboard: server.urls.dashboard, logs: server.urls.logs!, metrics: server.urls.metrics! }, fixture.t0);
      // every field the older Outpost answered, with its value (newer code may answer more fields)
      expect(answers).toMatchObject(fixture.answers);
      expect(JSON.stringify(answers)).toContain("line 49 of old");
      expect(JSON.stringify(answers)).toContain("dash-old");
      const applied = await server.db.pg.query<{ version: number }>("select version from schema_migrations order by version");
      expect(applied.rows.map((r) => r.version)).toEqual(migrations.map((m) => m.version));
    } finally {
      await server.stop();
    }
    const marker = JSON.parse(readFileSync(join(dir, FORMAT_FILE), "utf8"));
    expect(marker).toMatchObject({ format: DATA_DIR_FORMAT, schema: latest, outpost: VERSION });
  });

  it("a data dir a newer Outpost wrote (a newer format, or a newer schema) is refused with both versions, nothing written to it", async () => {
    const dir = await fixtureDataDir();
    for (const newer of [{ format: DATA_DIR_FORMAT + 1, schema: latest, outpost: "9.0.0" }, { format: DATA_DIR_FORMAT, schema: latest + 5, outpost: "8.1.0" }]) {
      writeFileSync(join(dir, FORMAT_FILE), JSON.stringify(newer));
      const before = state(dir);
      const err = await openDatabase({ dataDir: dir, logger: silentLogger }).then(async (db) => {
        await db.close();
        return undefined;
      }, (e: unknown) => e);
      expect(err).toBeInstanceOf(DataDirTooNewError);
      expect((err as Error).message).toBe(
        `data dir ${dir} was written by a newer Outpost: Outpost ${newer.outpost} (data dir format ${newer.format}, database schema ${newer.schema}); ` +
          `this is Outpost ${VERSION} (data dir format ${DATA_DIR_FORMAT}, database schema up to ${latest}): use Outpost ${newer.outpost} or newer, or another data dir`,
      );
      expect(state(dir)).toEqual(before);
    }
    // outpost serve: exit 1, the message on one line
    const before = state(dir);
    const run = await runCli(["serve", "--data-dir", dir, ...freePortArgs]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/error: data dir .* was written by a newer Outpost: Outpost 8\.1\.0 .*; this is Outpost /);
    expect(state(dir)).toEqual(before);
  });
});
