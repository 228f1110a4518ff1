// Spec validation with arktype, failing as a Status naming the field.
import { type } from "../../../lib/arktype.ts";
import { tooLong } from "../core/identity/name-limits.ts";
import { statusErrors, type KindDescriptor } from "./kind.ts";

export function checkSpec<T>(d: KindDescriptor, schema: (data: unknown) => T | InstanceType<typeof type.errors>, spec: unknown, name: string): T {
  const out = schema(spec);
  if (out instanceof type.errors) {
    const first = out[0]!;
    const field = ["spec", ...first.path.map(String)].join(".");
    throw statusErrors.invalid(d, name, field, first.problem);
  }
  return out;
}

/** spec.title: not blank ("<what> title cannot be empty", the real product's words) and within its column's size */
export function checkTitle(d: KindDescriptor, name: string, title: string, what: string, max: number): void {
  if (!title.trim()) throw statusErrors.invalid(d, name, "spec.title", `${what} title cannot be empty`);
  const problem = tooLong(title, max);
  if (problem) throw statusErrors.invalid(d, name, "spec.title", problem);
}
