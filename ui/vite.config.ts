// Builds the UI into the Python package, where `feast-lineage ui` serves it.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const outDir = fileURLToPath(new URL("../src/feast_lineage/webui", import.meta.url));

export default defineConfig({
  base: "./",
  build: {
    outDir,
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
  },
  worker: { format: "es" },
  server: {
    // `npm run dev` proxies the API to a running `feast-lineage ui`.
    proxy: { "/api": "http://127.0.0.1:8888" },
  },
});
