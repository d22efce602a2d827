// Builds the UI into the Python package, where `feast-lineage ui` serves it.
import { defineConfig } from "vite";

// Relative to this directory (ui/), where npm runs vite.
const outDir = "../src/feast_lineage/webui";

export default defineConfig({
  base: "./",
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
