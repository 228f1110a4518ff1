// A backup archive (docs/operations.md, "Backup and restore"): a gzipped tar
// whose first entry is manifest.json (below), then the data dir's folders
// and files under data/, each file exactly as the manifest lists it (size,
// SHA-256). The manifest says which Outpost wrote it and what it holds, so a
// restore can refuse a newer one before writing anything.
import { type } from "../lib/arktype.ts";

/** goes up when the archive's layout changes in a way an older restore cannot read */
export const ARCHIVE_FORMAT = 1;
export const MANIFEST_NAME = "manifest.json";
/** where the data dir's entries are in the archive */
export const DATA_PREFIX = "data/";
/** the largest manifest read (a data dir of a hundred thousand files lists ~15 MB) */
export const MANIFEST_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Where the secret key is: in the archive (asked for), left out (the
 * default: sealed secrets then need the data dir's secret.key copied by
 * hand), or in the configuration (security.secret_key: never in a data dir).
 */
export const SECRET_KEY_STATES = ["included", "excluded", "configuration", "none"] as const;
export type SecretKeyState = (typeof SECRET_KEY_STATES)[number];

/** one path segment of a data dir file: what Outpost and PGlite name files with, nothing else (no "..", no separators) */
const SEGMENT = /^(?!\.\.?$)[A-Za-z0-9._-]{1,255}$/;
export const isSafeRelativePath = (p: string): boolean => p.length <= 4096 && p.split("/").every((s) => SEGMENT.test(s));

const safePath = type("string").narrow((p, ctx) => isSafeRelativePath(p) || ctx.mustBe("a relative path of plain names (letters, digits, . _ -)"));
const sha256 = type(/^[0-9a-f]{64}$/);

export const manifestSchema = type({
  kind: "'outpost-backup'",
  archiveFormat: "number.integer >= 1",
  outpost: "string",
  "commit?": "string",
  dataDirFormat: "number.integer >= 0",
  schema: "number.integer >= 0",
  createdAt: "string",
  "installationUid?": "string",
  secretKey: type.enumerated(...SECRET_KEY_STATES),
  /** how long the database was held for the copy (ms) */
  "databaseHeldMs?": "number",
  dirs: safePath.array(),
  files: type({ path: safePath, size: "number.integer >= 0", sha256 }).array(),
});

export type Manifest = typeof manifestSchema.infer;

/** what a restore says about the secret key, undefined when it needs nothing */
export function secretKeyNotice(m: Pick<Manifest, "secretKey">): string | undefined {
  switch (m.secretKey) {
    case "included":
    case "none":
      return undefined;
    case "configuration":
      return "the secret key was security.secret_key of the configuration, not in the data dir: start the restored server with the same key, or sealed secrets (data source passwords, secure values) cannot be opened";
    case "excluded":
      return "the archive holds no secret key (made without --include-secret-key): copy secret.key from the original data dir into the restored one before starting it, or sealed secrets (data source passwords, secure values) cannot be opened";
  }
}

/** archive names: outpost-backup-<UTC time to the ms>[-scheduled].tar.gz */
export const ARCHIVE_NAME = /^outpost-backup-\d{8}T\d{9}Z(-scheduled)?\.tar\.gz$/;

export function archiveName(at: Date, scheduled: boolean): string {
  const stamp = at.toISOString().replace(/[-:.]/g, "");
  return `outpost-backup-${stamp}${scheduled ? "-scheduled" : ""}.tar.gz`;
}

export const isScheduledName = (name: string): boolean => name.endsWith("-scheduled.tar.gz");
