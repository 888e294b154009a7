// Vite build for the snip dashboard: root web/, output dist/web (served by the snip server).
import { defineConfig, type Plugin } from "vite";
import react from "@vitejs/plugin-react";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const here = fileURLToPath(new URL(".", import.meta.url));
const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

/** Files worth compressing: below this, the compressed copy saves less than a packet. */
const PRECOMPRESS_MIN_BYTES = 1024;

/**
 * A Brotli (.br) and a gzip (.gz) copy of every built script, style sheet and SVG under assets/, made once at build
 * time with the strongest settings; the server sends the copy the browser accepts (@fastify/static's preCompressed,
 * src/http/app.ts). The entry script is 294 kB as built and 80 kB as Brotli: on Lighthouse's throttled phone
 * (1.6 Mbit/s) that is a second and more of the first paint.
 */
function precompress(): Plugin {
  return {
    name: "snip-precompress",
    apply: "build",
    writeBundle(options, bundle) {
      const dir = options.dir ?? "";
      for (const file of Object.keys(bundle)) {
        if (!file.startsWith("assets/") || !/\.(js|css|svg)$/.test(file)) continue;
        const body = readFileSync(join(dir, file));
        if (body.length < PRECOMPRESS_MIN_BYTES) continue;
        const brotliParams = { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length };
        writeFileSync(join(dir, `${file}.br`), brotliCompressSync(body, { params: brotliParams }));
        writeFileSync(join(dir, `${file}.gz`), gzipSync(body, { level: constants.Z_BEST_COMPRESSION }));
      }
    },
  };
}

export default defineConfig({
  root: here,
  base: "/",
  plugins: [react(), precompress()],
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
