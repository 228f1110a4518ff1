// A UTF-8 slice of bytes as a string, for a million short strings (label
// names and values): Buffer#utf8Slice without Buffer#toString's argument
// checks, on any Uint8Array, where the runtime has it (Bun, Node.js: ~90 ns
// for a short label where TextDecoder takes ~170 ns); TextDecoder elsewhere.
// Invalid sequences read as U+FFFD either way.
const native = (Buffer.prototype as { utf8Slice?: (this: Uint8Array, from: number, to: number) => string }).utf8Slice;
const decoder = new TextDecoder();

export const utf8Slice: (bytes: Uint8Array, from: number, to: number) => string =
  typeof native === "function" ? (bytes, from, to) => native.call(bytes, from, to) : (bytes, from, to) => decoder.decode(bytes.subarray(from, to));
