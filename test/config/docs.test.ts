import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { configDocPaths, renderConfigDoc } from "../../scripts/gen-config-docs.ts";

describe("configuration docs", () => {
  for (const path of configDocPaths) {
    it(`${path.split("/").slice(-2).join("/")} documents every key as src/config/keys.ts defines it (run \`npm run gen\`)`, () => {
      const doc = readFileSync(path, "utf8");
      expect(doc).toBe(renderConfigDoc(doc));
    });
  }
});
