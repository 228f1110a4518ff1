// A file of secret keys, one per line, the current key first and the keys it
// replaced after it (until everything sealed with them has been re-wrapped).
// Written atomically (a temporary file renamed over it) with mode 0600, so a
// reader never sees half a file and no other user can read it.
import { chmodSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";

/** the data dir's key file (secrets/secret-keys.ts; a backup leaves it out unless asked) */
export const DATA_DIR_KEY_FILE = "secret.key";

/** the keys in the file, current first; undefined when there is no file */
export function readKeyFile(path: string): string[] | undefined {
  if (!existsSync(path)) return undefined;
  const keys = readFileSync(path, "utf8").split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"));
  if (keys.length === 0) throw new Error(`${path} holds no key`);
  return keys;
}

export function writeKeyFile(path: string, keys: readonly string[]): void {
  if (keys.length === 0) throw new Error("a key file needs at least one key");
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${keys.join("\n")}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600); // the mode of writeFileSync is masked by the umask
  renameSync(temporary, path);
}

/** 256 random bits, base64url */
export function generateKey(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/** changes whenever the file is replaced or written (for polling) */
export function keyFileStamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return "missing";
  }
}
