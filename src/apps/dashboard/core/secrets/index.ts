// Secrets at rest and their redaction (README.md). The entry the other
// feature folders of core/ import secrets through; routes and the CLI import
// the service files themselves.
export { redactStream, redactText } from "./secret-redaction.ts";
export { type SealedField, type Secrets } from "./secrets.ts";
