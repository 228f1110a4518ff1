// Version and build commit. The commit is injected by scripts/build.ts
// (bun build --define); development runs report "dev".
import pkg from "../package.json" with { type: "json" };

declare const OUTPOST_BUILD_COMMIT: string | undefined;

export const VERSION: string = pkg.version;
export const COMMIT: string = typeof OUTPOST_BUILD_COMMIT === "string" ? OUTPOST_BUILD_COMMIT : "dev";
