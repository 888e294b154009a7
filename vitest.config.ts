import { configDefaults, defineConfig } from "vitest/config";

// CI's second pass (Node 24, .ci/run) runs what the Node version can change: the server, the native SQLite module, the
// worker threads and processes, the CLI. The browser walks (test/e2e/: what Chromium draws) and the
// documents' checks (test/docs/) do not depend on the server's Node version and ran on the first pass.
const secondPass = process.env.SNIP_CI_SECOND_PASS === "1";

export default defineConfig({
  // The workspace's typed client from its source, as the dashboard's build and `tsc` read it.
  resolve: { alias: { "@snip/client": new URL("packages/client/src/index.ts", import.meta.url).pathname } },
  test: {
    include: ["test/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...(secondPass ? ["test/e2e/**", "test/docs/**"] : [])],
    // Tests that start `snip` as a process run the compiled CLI (dist/).
    globalSetup: ["./test/helpers/build-server.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
  },
});
