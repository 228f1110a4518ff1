// Request bodies after their Content-Encoding (gzip, deflate; identity and
// snappy are left to the body's reader), inflated with the decoded size
// capped at max_recv_msg_size while inflating: a small bomb never grows
// memory past the cap (issue 16 #5); over it is the real stores' 413.
import { promisify } from "node:util";
import { gunzip, gunzipSync, inflate, inflateSync } from "node:zlib";
import { ApiError } from "./errors.ts";

const bad = (message: string) => new ApiError(400, message);

/**
 * The body as bytes, after Content-Encoding (snappy is left to the protobuf
 * reader). The decoded size is capped at `maxBytes` (max_recv_msg_size) while
 * inflating, so a small bomb never grows memory past the cap (issue 16 #5);
 * over it is the real store's 413.
 */
export async function decodeContent(body: Uint8Array, encoding: string | undefined, maxBytes: number): Promise<Uint8Array> {
  // the asynchronous forms inflate off the event loop on Bun and Node
  return inflated(body, encoding, maxBytes, (e, b, o) => (e === "gzip" ? gunzipAsync(b, o) : inflateAsync(b, o)));
}

/** decodeContent on a thread that may block (a worker decoding a push) */
export function decodeContentSync(body: Uint8Array, encoding: string | undefined, maxBytes: number): Uint8Array {
  return inflated(body, encoding, maxBytes, (e, b, o) => (e === "gzip" ? gunzipSync(b, o) : inflateSync(b, o)));
}

type Inflate<R> = (encoding: "gzip" | "deflate", body: Uint8Array, options: { maxOutputLength: number }) => R;

function inflated(body: Uint8Array, encoding: string | undefined, maxBytes: number, inflate: Inflate<Uint8Array>): Uint8Array;
function inflated(body: Uint8Array, encoding: string | undefined, maxBytes: number, inflate: Inflate<Promise<Uint8Array>>): Promise<Uint8Array>;
function inflated(body: Uint8Array, encoding: string | undefined, maxBytes: number, inflate: Inflate<Uint8Array | Promise<Uint8Array>>): Uint8Array | Promise<Uint8Array> {
  const e = (encoding ?? "").trim().toLowerCase();
  if (e === "" || e === "identity" || e === "snappy") return body;
  if (e !== "gzip" && e !== "deflate") throw bad(`Content-Encoding "${encoding}" not supported`);
  const failed = (err: unknown): never => {
    if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(maxBytes + 1, maxBytes, false);
    throw bad(`cannot decode ${e} body: ${(err as Error).message}`);
  };
  try {
    const out = inflate(e, body, { maxOutputLength: maxBytes });
    return out instanceof Promise ? out.catch(failed) : out;
  } catch (err) {
    return failed(err);
  }
}

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

/** the real store's ErrRequestBodyTooLarge, answered 413 */
export const tooLarge = (size: number, limit: number, sizeKnown = true) =>
  new ApiError(413, `request body too large: ${size} bytes, limit: ${limit} bytes`, sizeKnown ? { extra: { size } } : {});

