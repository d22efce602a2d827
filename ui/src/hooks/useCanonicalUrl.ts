// A URL value the page cannot show as given (depth=-5, offset=abc) is
// rewritten to what the page shows and asks the server for, so a copied
// link says what the reader saw. The history entry is replaced, not added.

import { useEffect } from "react";
import type { Navigate, Patch, Route } from "../route";

/** `shown`: for each key, the value the page uses (null: the view's default, no key). */
export function useCanonicalUrl(route: Route, navigate: Navigate, shown: Record<string, string | null>): void {
  const patch: Patch = {};
  for (const [key, value] of Object.entries(shown)) {
    if (route[key] !== undefined && route[key] !== value) patch[key] = value;
  }
  const change = Object.keys(patch).length ? JSON.stringify(patch) : null;
  useEffect(() => {
    if (change) navigate(JSON.parse(change) as Patch);
  }, [change, navigate]);
}
