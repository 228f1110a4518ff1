// arktype, configured once for the whole program: every module takes `type`
// from here, never from "arktype" itself (test/architecture.test.ts checks).
//
// jitless: arktype otherwise generates and compiles JavaScript for every
// schema when the schema is built, and the program builds ~90 schemas while
// it loads: about 40% of loading time, before the first listener can open.
// Interpreted checks cost ~2 µs instead of ~0.5 µs per request body, which
// no route notices (the database work behind each is hundreds of times that).
// arktype reads its settings when it is first imported: the import of
// ./arktype-jitless.ts (which sets them) must stay before that of "arktype".
import "./arktype-jitless.ts";
export { type } from "arktype";
