// Opaque list continuation tokens: base64url JSON naming the last item
// returned. Lists are ordered by a stable key, so a token stays correct when
// items are created or deleted between pages.
import { ApiError } from "./errors.ts";

export function encodeContinue(data: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(data), "utf8").toString("base64url");
}

export function decodeContinue(token: string): Record<string, unknown> {
  try {
    const data = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as unknown;
    if (typeof data === "object" && data !== null && !Array.isArray(data)) return data as Record<string, unknown>;
  } catch { /* fall through */ }
  throw new ApiError(400, "invalid continue token", { reason: "BadRequest" });
}
