import { configDefaults, defineConfig } from "vitest/config";

// CI's second pass (Node 24, .ci/run) runs what the Node version can change: the native SQLite module and the click
// writer's worker thread (test/db/), worker processes and crash recovery, the brokers' clients, the CLI, the server's
// start, drain and shutdown, and one file per kind of answer (redirects on both paths, statistics, static files, mail,
// webhooks over TLS). The rest of test/api/ exercises snip's own logic through Node's HTTP server, which the first pass
// covered; the browser walks (test/e2e/) and the documents' checks (test/docs/) do not depend on the server's Node.
const secondPass = process.env.SNIP_CI_SECOND_PASS === "1";
const SECOND_PASS_API = [
  "cli",
  "cli-domains",
  "imports-cli",
  "sso-cli",
  "team-cli",
  "smoke",
  "shutdown",
  "readyz",
  "operations",
  "file-modes",
  "database-wait",
  "fast-redirect",
  "links-redirect",
  "stats",
  "static-assets",
  "slow-clients",
  "smtp",
  "webhooks-ca",
  "metrics",
  "traces",
];
/** Files that mock modules (vi.mock), first pass only. */
const ISOLATED = ["test/api/alias-reservations.test.ts"];
const FIRST_PASS_INCLUDE = ["test/**/*.test.ts", "packages/*/test/**/*.test.ts"];
const SECOND_PASS_INCLUDE = ["test/{unit,db,streams,contract}/**/*.test.ts", `test/api/{${SECOND_PASS_API.join(",")}}.test.ts`, "packages/*/test/**/*.test.ts"];

export default defineConfig({
  // The workspace's typed client from its source, as the dashboard's build and `tsc` read it.
  resolve: { alias: { "@snip/client": new URL("packages/client/src/index.ts", import.meta.url).pathname } },
  test: {
    // Tests that start `snip` as a process run the compiled CLI (dist/); a test server's new database is a copy of
    // the run's migrated one.
    globalSetup: ["./test/helpers/build-server.ts", "./test/helpers/template-databases.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
    // The two worker processes each run many files, keeping the modules they imported: per-file isolation spent
    // most of a file's time importing snip's modules again (13 test/api files: 160 s of imports without, 42 s with).
    // Files share no state but what they start themselves (each its own server, database and data directory).
    // A file that mocks a module needs a module graph of its own (a module another file loaded first would keep
    // the real one): those run isolated.
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include: secondPass ? SECOND_PASS_INCLUDE : FIRST_PASS_INCLUDE,
          exclude: [...configDefaults.exclude, ...ISOLATED],
          isolate: false,
        },
      },
      ...(secondPass ? [] : [{ extends: true as const, test: { name: "isolated", include: ISOLATED, isolate: true } }]),
    ],
  },
});
