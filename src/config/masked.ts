// The configuration as the stores' GET /config shows it: every secret key's
// value replaced, so it can be shown to anyone who can reach the listener.
import { configKeys } from "./keys.ts";
import type { Config } from "./schema.ts";

export function maskedConfig(config: Config): Record<string, unknown> {
  const copy = structuredClone(config) as Record<string, unknown>;
  for (const key of configKeys.filter((k) => k.secret)) {
    const path = key.path.split(".");
    let at: Record<string, unknown> | undefined = copy;
    for (const p of path.slice(0, -1)) at = at?.[p] as Record<string, unknown> | undefined;
    if (at && path.at(-1)! in at) at[path.at(-1)!] = "********";
  }
  return copy;
}
