// Backups of the whole server (src/backup/; docs/operations.md, "Backup and
// restore"), for server admins: POST starts one (answered at once with 202:
// a large backup outlasts any HTTP timeout; a second while one runs is 409),
// GET lists them (the one running, the newest first), GET /:name downloads one
// as a stream, DELETE /:name removes it. A backup holds every password hash,
// token hash and sealed secret of the server: its actions are granted to
// server admins only, and one that holds the secret key (it opens the sealed
// secrets) needs server.backups.secretkey:read on top, to make or to download.
import type { Context } from "hono";
import type { Backups } from "../../../../backup/service.ts";
import { type } from "../../../../lib/arktype.ts";
import { fileBody } from "../../../../platform/file-body.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { accessDenied, identityOf, type Router } from "../../access/guard.ts";
import { hasPermission } from "../../core/identity/permissions.ts";

const BackupIn = type({ "includeSecretKey?": "boolean" });
const BASE = "/api/admin/backups";
const SECRET_KEY = "server.backups.secretkey:read";

/** the secret key goes only to who holds the action for it */
function mayHaveSecretKey(c: Context): void {
  if (!hasPermission(identityOf(c).permissions, SECRET_KEY)) throw accessDenied(SECRET_KEY);
}

export function registerBackups(r: Router, deps: { backups: Backups }): void {
  const { backups } = deps;
  r.get(BASE, { action: "server.backups:read" }, async (c) => c.json(await backups.list()));

  r.post(BASE, { action: "server.backups:create" }, async (c) => {
    // the body is optional: no body is {"includeSecretKey": false}
    const hasBody = c.req.header("Content-Type") !== undefined || (c.req.header("Content-Length") ?? "0") !== "0";
    const body = hasBody ? await parseBody(c, BackupIn) : {};
    const includeSecretKey = body.includeSecretKey ?? false;
    if (includeSecretKey) mayHaveSecretKey(c);
    const { info } = backups.start({ includeSecretKey });
    return c.json(info, 202);
  }, {
    body: BackupIn,
    responses: { 202: "the backup has started: GET /api/admin/backups shows it running, then complete (or failed)", 400: "the server keeps everything in memory: nothing to back up", 409: "a backup is already running" },
  });

  r.get(`${BASE}/:name`, { action: "server.backups:read" }, async (c) => {
    const { path, info } = await backups.file(c.req.param("name")!);
    if (info.includesSecretKey) mayHaveSecretKey(c);
    return new Response(fileBody(path, info.size), {
      headers: {
        "Content-Type": "application/gzip",
        "Content-Length": String(info.size),
        "Content-Disposition": `attachment; filename="${info.name}"`,
        "Cache-Control": "no-store",
      },
    });
  }, { responses: { 404: "no backup of that name", 409: "the backup is still being written" } });

  r.delete(`${BASE}/:name`, { action: "server.backups:delete" }, async (c) => {
    await backups.remove(c.req.param("name")!);
    return c.json({ message: "Backup deleted" });
  }, { responses: { 404: "no backup of that name", 409: "the backup is still being written" } });
}
