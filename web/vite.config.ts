// Vite build for the snip dashboard: root web/, output dist/web (served by the snip server).
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

export default defineConfig({
  root: here,
  base: "/",
  plugins: [react()],
  // The release the footer names: package.json's version at build time.
  define: { __SNIP_VERSION__: JSON.stringify(version) },
  // The server's shapes and its dependency-free tables (web/tsconfig.json's paths), and the typed client's source.
  resolve: {
    alias: {
      "@contract": fileURLToPath(new URL("../src/contract", import.meta.url)),
      "@snip/client": fileURLToPath(new URL("../packages/client/src/index.ts", import.meta.url)),
    },
  },
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    // .vite/manifest.json: which chunks each page loads (test/e2e/bundle-size.test.ts holds them to their budgets).
    manifest: true,
    // Rolldown's note that plugins took a share of the build's time is about a loaded machine, not the output.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  server: {
    // `vite --config web/vite.config.ts` during development: forward the API to a local snip.
    proxy: { "/api": "http://127.0.0.1:8080" },
  },
});
