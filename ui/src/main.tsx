import { QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "@xyflow/react/dist/style.css";
import "./styles.css";
import { App } from "./App";
import { prefetchColumns } from "./api/columns";
import { prefetchGraph } from "./api/queries";
import { createQueryClient } from "./api/queryClient";
import { prepareLayout } from "./graph/layout";
import { traceOfSearch, traceQuery } from "./views/columns/trace";

const queryClient = createQueryClient();
// The first graph is asked for at once, and the layout worker started, while
// the page renders and reads its settings.
prefetchGraph(queryClient, window.location.search);
prepareLayout();
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
