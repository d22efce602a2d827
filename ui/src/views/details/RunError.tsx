// A failed run's error: its errorMessage facet's message, and the stack
// trace folded (it can run to hundreds of lines).

import type { RunDetail } from "../../types";

export interface RunFailure {
  message: string;
  language: string | null;
  stackTrace: string | null;
}

/** The errorMessage facet of a run (its facets, or their JSON text), when it has a message. */
export function runFailure(facets: RunDetail["facets"] | string | null | undefined): RunFailure | null {
  let parsed: Record<string, unknown> | null = null;
  if (typeof facets === "string") {
    try {
      parsed = JSON.parse(facets) as Record<string, unknown>;
    } catch {
      return null;
    }
  } else parsed = facets ?? null;
  const facet = parsed?.errorMessage as Record<string, unknown> | undefined;
  const message = facet?.message;
  if (typeof message !== "string" || !message) return null;
  const language = facet?.programmingLanguage;
  const stack = facet?.stackTrace;
  return {
    message,
    language: typeof language === "string" ? language : null,
    stackTrace: typeof stack === "string" && stack ? stack : null,
  };
}

export function RunError({ failure }: { failure: RunFailure }) {
  return (
    <div className="run-error" data-testid="run-error" role="alert">
      <div className="run-error-message">
        {failure.message}
        {failure.language && <span className="muted small"> ({failure.language})</span>}
      </div>
      {failure.stackTrace && (
        <details className="run-error-stack" data-testid="run-stack">
          <summary>Stack trace ({failure.stackTrace.split("\n").length} lines)</summary>
          <pre className="code">{failure.stackTrace}</pre>
        </details>
      )}
    </div>
  );
}
