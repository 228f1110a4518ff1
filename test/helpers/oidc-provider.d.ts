// oidc-provider ships no types (its @types package lags its releases): what the tests use.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";
  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    proxy: boolean;
    on(event: string, listener: (...args: unknown[]) => void): void;
  }
  export default Provider;
}
