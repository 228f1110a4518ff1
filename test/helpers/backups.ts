// Backups through the dashboard API, as outpost backup drives it: start one,
// wait for it to end, download it; and an archive's entry names, read with
// tar-stream (not the code under test).
import { createReadStream, createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { extract } from "tar-stream";
import type { BackupInfo } from "../../src/backup/service.ts";
import { POLL_DEADLINE_MS } from "./eventually.ts";

export async function startBackup(dashboard: string, auth: string, body: unknown = {}): Promise<Response> {
  return fetch(`${dashboard}/api/admin/backups`, { method: "POST", headers: { Authorization: auth, "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

export async function listBackups(dashboard: string, auth: string): Promise<BackupInfo[]> {
  const res = await fetch(`${dashboard}/api/admin/backups`, { headers: { Authorization: auth } });
  if (res.status !== 200) throw new Error(`list: ${res.status} ${await res.text()}`);
  return (await res.json()) as BackupInfo[];
}

/** waits until the backup is no longer running; its entry then */
export async function backupDone(dashboard: string, auth: string, name: string, timeoutMs = POLL_DEADLINE_MS * 4): Promise<BackupInfo> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await listBackups(dashboard, auth)).find((b) => b.name === name);
    if (found && found.state !== "running") return found;
    if (Date.now() > deadline) throw new Error(`backup ${name} still ${found?.state ?? "missing"} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** makes a backup and waits for it: its complete entry */
export async function makeBackup(dashboard: string, auth: string, body: unknown = {}): Promise<BackupInfo> {
  const res = await startBackup(dashboard, auth, body);
  if (res.status !== 202) throw new Error(`backup: ${res.status} ${await res.text()}`);
  const info = await backupDone(dashboard, auth, ((await res.json()) as BackupInfo).name);
  if (info.state !== "complete") throw new Error(`backup ${info.name}: ${info.state} ${info.error ?? ""}`);
  return info;
}

export async function download(dashboard: string, auth: string, name: string, to: string): Promise<Response> {
  const res = await fetch(`${dashboard}/api/admin/backups/${name}`, { headers: { Authorization: auth } });
  if (res.status === 200 && res.body) await pipeline(Readable.fromWeb(res.body as unknown as import("node:stream/web").ReadableStream), createWriteStream(to));
  return res;
}

export interface ArchiveEntry {
  header: { name: string; type?: string; size?: number; linkname?: string; mode?: number };
  data: Buffer;
}

/** every entry of a .tar.gz, its bytes in memory (test archives are small) */
export async function archiveEntries(path: string): Promise<ArchiveEntry[]> {
  const ex = extract();
  const reading = pipeline(createReadStream(path), createGunzip(), ex as unknown as NodeJS.WritableStream);
  const out: ArchiveEntry[] = [];
  for await (const e of ex) {
    const parts: Buffer[] = [];
    for await (const chunk of e as unknown as AsyncIterable<Buffer>) parts.push(chunk);
    out.push({ header: { name: e.header.name, type: e.header.type, size: e.header.size, mode: e.header.mode }, data: Buffer.concat(parts) });
  }
  await reading;
  return out;
}

/** the archive's entry names in order, with the manifest (the first entry) parsed */
export async function entriesOf(path: string): Promise<{ names: string[]; manifest: Record<string, unknown> }> {
  const entries = await archiveEntries(path);
  return { names: entries.map((e) => e.header.name), manifest: JSON.parse(entries[0]!.data.toString("utf8")) as Record<string, unknown> };
}
