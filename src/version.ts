// Version and build commit. The commit is injected by scripts/build.ts
// (bun build --define); development runs report "dev".
import pkg from "../package.json" with { type: "json" };

declare const OUTPOST_BUILD_COMMIT: string | undefined;

export const VERSION: string = pkg.version;
export const COMMIT: string = typeof OUTPOST_BUILD_COMMIT === "string" ? OUTPOST_BUILD_COMMIT : "dev";

/**
 * The version of the real dashboard product's API that Outpost implements,
 * reported where clients read a version to pick their code paths
 * (GET /api/health, the frontend settings' buildInfo): reporting Outpost's own
 * 0.x sent grafana-client down its pre-8.0 branches (docs/compatibility.md).
 * Outpost's own version stays beside it (outpostVersion, outpost.version) and
 * in `outpost version`.
 */
export const API_VERSION = "12.0.0";
