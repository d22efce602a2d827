// Builds the UI into the Python package, where `feast-lineage ui` serves it.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { defineConfig, type Plugin } from "vite";

// Relative to this directory (ui/), where npm runs vite.
const outDir = "../src/feast_lineage/webui";

// The files of swagger-ui-dist (the Swagger UI project's own prebuilt
// distribution) that the server's /docs page loads, copied into the build's
// api-docs/ so that the API reference works with no network
// (src/feast_lineage/consumer/routes/api_docs.py serves them).
const SWAGGER_UI_FILES = ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png", "LICENSE", "NOTICE"];

function swaggerUi(): Plugin {
  const dist = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  return {
    name: "feast-lineage-swagger-ui",
    apply: "build",
    generateBundle() {
      for (const file of SWAGGER_UI_FILES) {
        this.emitFile({ type: "asset", fileName: `api-docs/${file}`, source: readFileSync(join(dist, file)) });
      }
    },
  };
}

export default defineConfig({
  base: "./",
  plugins: [swaggerUi()],
  build: {
    outDir,
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
    rollupOptions: {
      onwarn(warning, warn) {
        // React Flow's "use client" marker means nothing in a static app.
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
    },
  },
  worker: { format: "es" },
  server: {
    // `npm run dev` proxies the API to a running `feast-lineage ui`.
    proxy: { "/api": "http://127.0.0.1:8888" },
  },
});
