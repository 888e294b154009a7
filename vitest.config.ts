import { defineConfig } from "vitest/config";

export default defineConfig({
  // The workspace's typed client from its source, as the dashboard's build and `tsc` read it.
  resolve: { alias: { "@snip/client": new URL("packages/client/src/index.ts", import.meta.url).pathname } },
  test: {
    include: ["test/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    // Tests that start `snip` as a process run the compiled CLI (dist/).
    globalSetup: ["./test/helpers/build-server.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
  },
});
