// The container tests alone (npm run test:container): one file at a time, minutes each, never in `npm test`.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/container/*.container.ts"],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
