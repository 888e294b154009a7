// The compiled CLI (dist/src/cli.js, built by test/helpers/build-server.ts before the tests) and the node
// arguments that run it, for tests that start `snip` as a process.
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..");

export const builtCli = join(root, "dist", "src", "cli.js");

/** node's arguments: preloaded modules (node --import), then the CLI and its arguments. */
export function cliArgv(args: string[], imports: string[] = []): string[] {
  return [...imports, builtCli, ...args];
}
