// /api/admin/backups (issue 25): server admins start a backup (202, it runs in
// the background; a second meanwhile is 409), list, download (a stream) and
// delete them; the secret key is in one only when asked for, and only for a
// caller holding server.backups.secretkey:read; everyone else gets 403; a name
// that is not a backup's (a path, "..") is 404; scheduled backups keep the
// newest backups.keep. The archive's consistency and restore: test/backup/.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN, bearer } from "../../../helpers/api.ts";
import { backupDone, download, entriesOf, listBackups, makeBackup, startBackup } from "../../../helpers/backups.ts";
import { eventually } from "../../../helpers/eventually.ts";
import { startTestServer, useServer } from "../../../helpers/server.ts";
import { tempDirs } from "../../../helpers/temp-dirs.ts";

const BASE = "/api/admin/backups";
const tempDir = tempDirs("outpost-backups-api-");

describe("/api/admin/backups", () => {
  const dataDir = join(tempDir(), "data");
  const t = useServer({ "storage.in_memory": false, "storage.data_dir": dataDir });
  const files = tempDir();
  let viewer = "";
  let orgAdmin = "";
  let saToken = "";

  beforeAll(async () => {
    viewer = (await t.api.user("backup-viewer", "Viewer")).auth;
    orgAdmin = (await t.api.user("backup-org-admin", "Admin")).auth;
    const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "backup robot", role: "Admin" } });
    saToken = (await t.api.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { auth: ADMIN, body: { name: "b" } })).body.key;
  });

  it("POST (server admin) -> 202 running, then complete in the list; GET downloads it (gzip, manifest first, no secret key); DELETE removes it", async () => {
    const res = await startBackup(t.server.urls.dashboard, ADMIN);
    expect(res.status).toBe(202);
    const started = await res.json();
    expect(started).toMatchObject({ state: "running", includesSecretKey: false, scheduled: false });
    expect(started.name).toMatch(/^outpost-backup-\d{8}T\d{9}Z\.tar\.gz$/);
    const done = await backupDone(t.server.urls.dashboard, ADMIN, started.name);
    expect(done).toMatchObject({ name: started.name, state: "complete", includesSecretKey: false, outpostVersion: expect.any(String), schemaVersion: expect.any(Number) });
    expect(done.size).toBeGreaterThan(0);
    expect(done.databaseHeldMs).toBeGreaterThanOrEqual(0);

    const to = join(files, "one.tar.gz");
    const got = await download(t.server.urls.dashboard, ADMIN, started.name, to);
    expect(got.status).toBe(200);
    expect(got.headers.get("Content-Type")).toBe("application/gzip");
    expect(Number(got.headers.get("Content-Length"))).toBe(done.size);
    expect(got.headers.get("Content-Disposition")).toBe(`attachment; filename="${started.name}"`);
    const { names, manifest } = await entriesOf(to);
    expect(names[0]).toBe("manifest.json");
    expect(manifest).toMatchObject({ kind: "outpost-backup", archiveFormat: 1, secretKey: "excluded" });
    expect(names).toContain("data/pgdata/PG_VERSION");
    expect(names).toContain("data/outpost-format.json");
    // never: the key (not asked for), the lock, the backups folder itself
    expect(names.some((n) => /secret\.key|outpost\.lock|backups\//.test(n))).toBe(false);

    const gone = await t.api.delete(`${BASE}/${started.name}`, { auth: ADMIN });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ message: "Backup deleted" });
    expect((await listBackups(t.server.urls.dashboard, ADMIN)).some((b) => b.name === started.name)).toBe(false);
    expect((await t.api.get(`${BASE}/${started.name}`, { auth: ADMIN })).status).toBe(404);
    expect((await t.api.delete(`${BASE}/${started.name}`, { auth: ADMIN })).status).toBe(404);
  });

  it("includeSecretKey: true -> the data dir's secret.key is in the archive, and the list says so", async () => {
    const info = await makeBackup(t.server.urls.dashboard, ADMIN, { includeSecretKey: true });
    expect(info.includesSecretKey).toBe(true);
    const to = join(files, "with-key.tar.gz");
    expect((await download(t.server.urls.dashboard, ADMIN, info.name, to)).status).toBe(200);
    const { names, manifest } = await entriesOf(to);
    expect(names).toContain("data/secret.key");
    expect(manifest.secretKey).toBe("included");
    expect((await listBackups(t.server.urls.dashboard, ADMIN)).find((b) => b.name === info.name)?.includesSecretKey).toBe(true);
  });

  it("a second POST while one runs -> 409 naming the one running; nothing half-written is left in backups.dir", async () => {
    const [first, second] = await Promise.all([startBackup(t.server.urls.dashboard, ADMIN), startBackup(t.server.urls.dashboard, ADMIN)]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([202, 409]);
    const [ok, refused] = first.status === 202 ? [first, second] : [second, first];
    const name = (await ok.json()).name;
    const body = await refused.json();
    expect(body.message).toMatch(/a backup is already running/);
    expect(body.name).toBe(name);
    // downloading or deleting the one being written -> 409
    const early = await t.api.get(`${BASE}/${name}`, { auth: ADMIN });
    if (early.status !== 200) expect(early.status).toBe(409);
    await backupDone(t.server.urls.dashboard, ADMIN, name);
    expect(readdirSync(join(dataDir, "backups")).filter((n) => n.startsWith("."))).toEqual([]);
  });

  // a service account made a server admin (outpost admin create-token --server-admin) backs up with its token: test/backup/cli.test.ts
  it("an org Admin service account's token, an org Admin, a Viewer -> 403; no credentials -> 401", async () => {
    const byToken = await makeBackup(t.server.urls.dashboard, ADMIN);
    for (const auth of [viewer, orgAdmin, bearer(saToken)]) {
      expect((await t.api.get(BASE, { auth })).status).toBe(403);
      expect((await t.api.post(BASE, { auth, body: {} })).status).toBe(403);
      expect((await t.api.get(`${BASE}/${byToken.name}`, { auth })).status).toBe(403);
      expect((await t.api.delete(`${BASE}/${byToken.name}`, { auth })).status).toBe(403);
    }
    expect((await t.api.get(BASE)).status).toBe(401);
    expect((await t.api.post(BASE, { body: {} })).status).toBe(401);
    expect((await t.api.get(`${BASE}/${byToken.name}`)).status).toBe(401);
  });

  it("a name that is not a backup's -> 404 (a NUL in the path: 400): a path, .., an encoded separator, the lock, a partial file; the files are untouched", async () => {
    for (const name of ["..", "..%2F..%2Fsecret.key", "%2E%2E%2Foutpost.lock", "outpost.lock", "secret.key", ".outpost-backup-20260101T000000000Z.tar.gz.partial", "outpost-backup-20260101T000000000Z.tar.gz", "outpost-backup-x.tar.gz%00"]) {
      const status = name.includes("%00") ? 400 : 404;
      expect([name, (await t.api.get(`${BASE}/${name}`, { auth: ADMIN })).status]).toEqual([name, status]);
      expect([name, (await t.api.delete(`${BASE}/${name}`, { auth: ADMIN })).status]).toEqual([name, status]);
    }
    expect(existsSync(join(dataDir, "secret.key"))).toBe(true);
    expect(existsSync(join(dataDir, "outpost.lock"))).toBe(true);
  });

  it("a bad body -> 400 naming the field; no body is a backup without the key", async () => {
    const bad = await t.api.post(BASE, { auth: ADMIN, body: { includeSecretKey: "yes" } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/includeSecretKey/);
    const bare = await fetch(`${t.server.urls.dashboard}${BASE}`, { method: "POST", headers: { Authorization: ADMIN } });
    expect(bare.status).toBe(202);
    const info = await backupDone(t.server.urls.dashboard, ADMIN, (await bare.json()).name);
    expect(info).toMatchObject({ state: "complete", includesSecretKey: false });
  });
});

describe("/api/admin/backups of a server in memory", () => {
  const t = useServer();
  it("POST -> 400: nothing to back up; the list is empty", async () => {
    const res = await t.api.post(BASE, { auth: ADMIN, body: {} });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/backups need a data dir/);
    expect((await t.api.get(BASE, { auth: ADMIN })).body).toEqual([]);
  });
});

describe("scheduled backups (backups.schedule, backups.keep)", () => {
  const dataDir = join(tempDir(), "data");
  // every second (croner's 6 fields, seconds first): the schedule is tested without waiting minutes
  const t = useServer({ "storage.in_memory": false, "storage.data_dir": dataDir, "backups.schedule": "* * * * * *", "backups.keep": 2 });

  it("runs on the schedule and keeps the newest backups.keep scheduled ones; one made on request is kept", async () => {
    // one made on request, between two scheduled ones (one runs at a time: 409 while a scheduled one runs)
    let manual: Awaited<ReturnType<typeof makeBackup>> | undefined;
    while (!manual) manual = await makeBackup(t.server.urls.dashboard, ADMIN).catch((err: Error) => (/409/.test(err.message) ? undefined : Promise.reject(err)));
    const written = () => t.server.logs.filter((l) => l.msg === "backup written" && String(l.name).endsWith("-scheduled.tar.gz")).map((l) => String(l.name));
    await eventually(() => written().length, (n) => expect(n).toBeGreaterThanOrEqual(4), 120_000);
    await eventually(
      () => listBackups(t.server.urls.dashboard, ADMIN),
      (list) => {
        const scheduled = list.filter((b) => b.scheduled && b.state === "complete").map((b) => b.name);
        expect(scheduled.length).toBe(2);
        // the newest two of those written so far (a later one may have come meanwhile)
        const all = written();
        for (const name of scheduled) expect(all.slice(-3)).toContain(name);
        expect(list.some((b) => b.name === manual!.name)).toBe(true);
      },
    );
    expect(t.server.logs.some((l) => l.msg === "old scheduled backup deleted")).toBe(true);
  });
});

describe("backups.dir", () => {
  it("the data dir itself, or a folder above it -> the server does not start, naming the key", async () => {
    for (const bad of [".", ".."]) {
      const dataDir = join(tempDir(), "data");
      const err = await startTestServer({ "storage.in_memory": false, "storage.data_dir": dataDir, "backups.dir": bad }).then(async (s) => {
        await s.stop();
        return undefined;
      }, (e: unknown) => e);
      expect((err as Error).message).toMatch(/backups\.dir \(.*\) is the data dir or a folder above it/);
    }
  });
});
