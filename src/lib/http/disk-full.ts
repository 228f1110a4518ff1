// Pushes refused while the disk guard finds no room (lib/disk-guard.ts): 507
// Insufficient Storage with the guard's reason, before the body is read.
// Shippers and Prometheus retry a 5xx, so nothing is lost while an operator
// frees space.
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../errors.ts";

export function refuseWhenDiskFull(guard: { refusal(): string | undefined } | undefined): MiddlewareHandler {
  return async (_c, next) => {
    const why = guard?.refusal();
    if (why) throw new ApiError(507, why);
    await next();
  };
}
