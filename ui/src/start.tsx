// The app, loaded by main.tsx once the first requests are on their way.

import { QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { prefetchGraph, prefetchSettings } from "./api/queries";
import { createQueryClient } from "./api/queryClient";

const queryClient = createQueryClient();
// The settings and the first graph (already asked for by main.tsx) go into
// the query cache as they arrive, while the page renders.
prefetchSettings(queryClient);
prefetchGraph(queryClient, window.location.search);

createRoot(document.getElementById("root") as HTMLElement).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
