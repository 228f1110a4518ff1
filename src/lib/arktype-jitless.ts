// Sets arktype's configuration; src/lib/arktype.ts imports it before
// "arktype", because arktype reads its configuration when first imported.
import { configure } from "arktype/config";

configure({ jitless: true });
