// The accessibility check the admin page's browser tests rely on
// (accessibilityProblems in test/helpers/browser.ts) finds what it should, on
// a page served with a strict Content-Security-Policy like the admin page's:
// an empty answer must mean "no problems", never "axe did not run".
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessibilityProblems, launchBrowser } from "../helpers/browser.ts";

const BAD = `<!doctype html><html><head><title>t</title></head><body><main>
<img src="/x.png"><button></button><p style="color:#bbb;background:#fff">faint text</p></main></body></html>`;
const GOOD = `<!doctype html><html lang="en"><head><title>fine</title></head><body><main>
<h1>Fine</h1><img src="/x.png" alt="a chart"><button>Save</button><p>plain text</p></main></body></html>`;

describe("accessibility check in Chromium", () => {
  let server: Server;
  let browser: Browser;
  let base = "";

  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(req.url === "/x.png" ? 404 : 200, { "Content-Type": "text/html", "Content-Security-Policy": "script-src 'self'; object-src 'none'" });
      res.end(req.url === "/good" ? GOOD : BAD);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it("a page with an image without alt text, an unnamed button and faint text -> each rule named", async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/bad`);
    const rules = (await accessibilityProblems(page)).map((p) => p.split(":")[0]).sort();
    expect(rules).toEqual(expect.arrayContaining(["button-name", "color-contrast", "html-has-lang", "image-alt"]));
    await page.close();
  });

  it("the same page put right -> []", async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/good`);
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.close();
  });
});
