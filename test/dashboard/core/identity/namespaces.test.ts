import { describe, expect, it } from "vitest";
import { namespaceOf, orgIdOfNamespace } from "../../../../src/apps/dashboard/core/identity/namespaces.ts";

const onPrem = { edition: "oss" as const, stackId: 1 };
const cloud = { edition: "cloud" as const, stackId: 42 };

describe("namespaces", () => {
  it("on-prem: org 1 is default, others org-<id>, both ways", () => {
    expect(namespaceOf(1, onPrem)).toBe("default");
    expect(namespaceOf(7, onPrem)).toBe("org-7");
    expect(orgIdOfNamespace("default", onPrem)).toBe(1);
    expect(orgIdOfNamespace("org-7", onPrem)).toBe(7);
    expect(orgIdOfNamespace("org-1", onPrem)).toBe(1);
  });

  it("cloud: the stack namespace", () => {
    expect(namespaceOf(1, cloud)).toBe("stacks-42");
    expect(orgIdOfNamespace("stacks-42", cloud)).toBe(1);
    expect(orgIdOfNamespace("stacks-41", cloud)).toBeUndefined();
    expect(orgIdOfNamespace("default", cloud)).toBeUndefined();
  });

  it("malformed namespaces are refused", () => {
    for (const bad of ["", "org-", "org-0", "org-01", "org-x", "Default", "org-1 ", "stacks-42", "org-99999999999"]) {
      expect(orgIdOfNamespace(bad, onPrem)).toBeUndefined();
    }
  });
});
