// The page's entry, kept small: it asks for the settings and the graph the
// page opens on, and starts the layout worker, at once, then loads the app (start.tsx, half a
// megabyte of code), so neither waits for that code to load and run.

import "@xyflow/react/dist/style.css";
import "./styles.css";
import { startGraph, startSettings } from "./api/endpoints";
import { firstGraphNamespace, GRAPH_LIMIT } from "./api/firstGraph";
import { prepareLayout } from "./graph/layout";

startSettings();
const namespace = firstGraphNamespace(window.location.search);
if (namespace !== undefined) startGraph(namespace, GRAPH_LIMIT);
prepareLayout();
void import("./start");
