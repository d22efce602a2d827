// The one QueryClient every fetch of the UI goes through (TanStack Query).

import { QueryClient } from "@tanstack/react-query";

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Each view asks the server again when it opens (an answer is never
        // fresh), nothing is fetched again behind the user's back, and a
        // failure shows at once, with a Retry button.
        staleTime: 0,
        refetchOnWindowFocus: false,
        retry: false,
        // The server is often on this machine: ask it even when the browser
        // believes it is offline (the default would wait for a network).
        networkMode: "always",
      },
    },
  });
}
