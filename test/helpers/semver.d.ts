// The two functions of semver (no @types package here) that test/standalone-clone.test.ts uses.
declare module "semver" {
  /** every version range `sub` admits is admitted by `dom` */
  export function subset(sub: string, dom: string): boolean;
  export function satisfies(version: string, range: string): boolean;
}
