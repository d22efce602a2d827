// The app, loaded by main.tsx once the first requests are on their way.

import { QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { prefetchColumns } from "./api/columns";
import { prefetchGraph, prefetchSettings } from "./api/queries";
import { createQueryClient } from "./api/queryClient";
import { traceOfSearch, traceQuery } from "./views/columns/trace";

const queryClient = createQueryClient();
// The settings and the first graph (already asked for by main.tsx) go into
// the query cache as they arrive, while the page renders.
prefetchSettings(queryClient);
prefetchGraph(queryClient, window.location.search);
// A link to the column view: its trace too.
const trace = traceOfSearch(window.location.search);
prefetchColumns(queryClient, trace && traceQuery(trace));

createRoot(document.getElementById("root") as HTMLElement).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
