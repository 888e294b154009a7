import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Tests that start `snip` as a process run the compiled CLI (dist/).
    globalSetup: ["./test/helpers/build-server.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
  },
});
