// Free ports for servers the tests start themselves.
import { createServer } from "node:net";

/** ports handed out in this process: the kernel may give a just-closed port again at once */
const handedOut = new Set<number>();

/**
 * a port nobody listens on right now and not handed out before in this process (the page needs
 * the stores' real ports in its settings; two calls in a row once got the same port, and the
 * server refused to start with "port ... is already used by dashboard.http_port")
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.once("error", reject);
      srv.listen(0, "127.0.0.1", () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}
