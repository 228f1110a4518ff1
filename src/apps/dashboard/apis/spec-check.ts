// Spec validation with arktype, failing as a Status naming the field.
import { type } from "arktype";
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
