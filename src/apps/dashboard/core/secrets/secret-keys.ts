// Where the key-encryption keys come from, and rotation without downtime.
//
// - security.secret_key set: it is the current key; security.previous_secret_keys
//   (and a data dir secret.key, if one exists) still open older secrets, which
//   are re-wrapped with the current key at startup.
// - otherwise <data_dir>/secret.key (mode 0600): generated on first boot; its
//   first line is the current key. `outpost secrets rotate` puts a new key in
//   front; the running server notices within seconds, seals new secrets with
//   it, re-wraps every stored data key, then drops the old lines. Secrets open
//   throughout, because every old key stays readable until nothing needs it.
// - in memory (--in-memory): a random key that lives as long as the process.
//
// Nodes sharing a PostgreSQL database must open each other's secrets: each
// needs the keys they were sealed with (the same security.secret_key, or a
// copy of one node's secret.key). A node that has none of the keys the
// database's secrets were sealed with is refused at start, before it seals
// anything with its own; and re-wrapping runs on one node at a time.
import type { Sql } from "../../../../db/sql.ts";
import { join } from "node:path";
import type { Config } from "../../../../config/schema.ts";
import { DATA_DIR_KEY_FILE, generateKey, keyFileStamp, readKeyFile, writeKeyFile } from "../../../../lib/key-file.ts";
import type { Logger } from "../../../../lib/logger.ts";
import { createKeySet, createSecrets, type KeySet, type Secrets } from "./secrets.ts";

export const KEY_FILE = DATA_DIR_KEY_FILE;
/** how often the server looks for a rotated key file */
export const KEY_FILE_POLL_MS = 2_000;

export interface SecretKeySource {
  keys: string[];
  /** the key file the current key lives in, when it is the data dir's */
  file?: string;
}

export function keyFileOf(dataDir: string): string {
  return join(dataDir, KEY_FILE);
}

/** the keys, current first; generates the data dir's key file on first boot */
export function resolveSecretKeys(security: Config["security"], dataDir: string | undefined): SecretKeySource {
  const previous = security.previous_secret_keys.filter((k) => k !== "");
  const fromFile = dataDir ? readKeyFile(keyFileOf(dataDir)) : undefined;
  if (security.secret_key) return { keys: [security.secret_key, ...previous, ...(fromFile ?? [])] };
  if (!dataDir) return { keys: [generateKey(), ...previous] };
  const file = keyFileOf(dataDir);
  if (fromFile) return { keys: [...fromFile, ...previous], file };
  const key = generateKey();
  writeKeyFile(file, [key]);
  return { keys: [key, ...previous], file };
}

/** runs `work` while no other node runs it (nodes sharing a PostgreSQL database); alone, it just runs */
export type OneAtATime = <T>(work: () => Promise<T>) => Promise<T>;
const alone: OneAtATime = (work) => work();

/**
 * Re-wraps what an earlier key sealed, then (for the key file) keeps only the
 * current key. Safe to run again: it does nothing when nothing is stale.
 */
export async function finishRotation(secrets: Secrets, source: SecretKeySource, logger: Logger, oneAtATime: OneAtATime = alone): Promise<{ rewrapped: number; unreadable: number }> {
  // nodes starting together would otherwise re-wrap the same rows side by side
  const result = await oneAtATime(() => secrets.rewrapAll());
  if (result.rewrapped) logger.info("secrets re-wrapped with the current key", { count: result.rewrapped, key_id: secrets.currentKeyId() });
  if (source.file && result.unreadable === 0) {
    const now = readKeyFile(source.file);
    // only if the file still starts with the key we re-wrapped to (no newer rotation meanwhile)
    if (now && now.length > 1 && now[0] === source.keys[0]) writeKeyFile(source.file, [now[0]!]);
  }
  return result;
}

/**
 * Watches the key file for a rotation while the server runs; returns stop().
 * A failure is logged and retried at the next change.
 */
export function watchKeyFile(secrets: Secrets, source: SecretKeySource, logger: Logger, periodMs = KEY_FILE_POLL_MS, oneAtATime: OneAtATime = alone): () => void {
  const file = source.file;
  if (!file) return () => {};
  let stamp = keyFileStamp(file);
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    const next = keyFileStamp(file);
    if (next === stamp) return;
    stamp = next;
    busy = true;
    (async () => {
      const keys = readKeyFile(file);
      if (!keys) throw new Error(`${file} was removed: keeping the keys in memory`);
      if (keys[0] !== source.keys[0]) {
        secrets.useKeys(await createKeySet([...keys, ...source.keys]));
        source.keys = [...keys, ...source.keys.filter((k) => !keys.includes(k))];
        logger.info("secret key rotated: new secrets are sealed with the new key", { key_id: secrets.currentKeyId() });
      }
      await finishRotation(secrets, source, logger, oneAtATime);
    })()
      .catch((err: unknown) => logger.error("secret key rotation failed", { err: (err as Error).message }))
      .finally(() => {
        busy = false;
      });
  }, periodMs);
  timer.unref?.();
  return () => clearInterval(timer);
}

export interface RunningSecrets {
  secrets: Secrets;
  /** stops watching the key file and waits for a re-wrap in progress */
  close(): Promise<void>;
}

/**
 * A database other nodes may share (PostgreSQL): refused when it holds
 * sealed secrets and this node has none of the keys they were sealed with
 * (a secret.key of its own, generated at its first start).
 */
export async function checkSharedKeys(pg: Sql, keys: KeySet, dataDir: string | undefined): Promise<void> {
  if (pg.backend !== "postgres") return;
  const sealedWith = (await pg.query<{ key_id: string }>("select distinct key_id from secrets order by key_id")).rows.map((r) => r.key_id);
  const mine = new Set([keys.current, ...keys.previous].map((k) => k.id));
  if (sealedWith.length === 0 || sealedWith.some((id) => mine.has(id))) return;
  const file = dataDir ? keyFileOf(dataDir) : join("<data dir>", KEY_FILE);
  throw new Error(
    `the database's secrets were sealed with a secret key this node does not have (key id ${sealedWith.join(", ")}; this node's: ${[...mine].join(", ")}): ` +
      `set security.secret_key to the same value on every node, or copy ${file} from a node that has it`,
  );
}

/**
 * The secrets of a server: keys resolved (and, on a shared database, checked
 * against what is sealed there), stale data keys re-wrapped in the background
 * (an interrupted rotation, a new security.secret_key) one node at a time, the
 * key file watched for rotations.
 */
export async function startSecrets(security: Config["security"], pg: Sql, dataDir: string | undefined, logger: Logger, oneAtATime: OneAtATime = alone): Promise<RunningSecrets> {
  const source = resolveSecretKeys(security, dataDir);
  const keys = await createKeySet(source.keys);
  await checkSharedKeys(pg, keys, dataDir);
  const secrets = createSecrets(pg, keys, logger);
  const rewrapping = finishRotation(secrets, source, logger, oneAtATime).catch((err: unknown) =>
    logger.error("re-wrapping secrets failed", { err: (err as Error).message }),
  );
  const stopWatching = watchKeyFile(secrets, source, logger, KEY_FILE_POLL_MS, oneAtATime);
  return {
    secrets,
    async close() {
      stopWatching();
      await rewrapping;
    },
  };
}
