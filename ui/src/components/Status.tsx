// Loading, empty and error states: each says what is going on and what to do.

import type { ReactNode } from "react";
import { ApiError } from "../api/http";
import { useCredential, type Credential } from "../hooks/useCredential";
import { KeyForm } from "./KeyForm";

export function Loading({ what }: { what: string }) {
  return (
    <div className="status status-loading" role="status">
      <div className="spinner" />
      <div>Loading {what}…</div>
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="status status-empty" role="status">
      <div className="status-title">{title}</div>
      {children && <div className="status-body">{children}</div>}
    </div>
  );
}

/** What to do about `error`; `credential`: what this server's reads take (its authorizer). */
function advice(error: unknown, credential: Credential): string {
  if (error instanceof ApiError) {
    if (error.status === 0) return "Start it again (feast-lineage ui) and press Retry.";
    if (error.status === 401)
      return `This server asks for ${credential.ask} for reading: enter it${credential.unknown ? " (ask the server's operator which)" : ""}.`;
    if (error.status === 403)
      return "Your key cannot see this project or namespace: enter another key here or with Read key at the top right.";
    if (error.status === 404 && error.code === "no_registry")
      return "Start feast-lineage ui from the feature repository, or pass -c <repo dir>.";
    if (error.status === 404) return "It may have been removed; clear the filter or go back.";
    if (error.status === 503) return "The server is busy or starting; press Retry in a moment.";
    if (error.status >= 500) return "See the server's log for the cause, then press Retry.";
  }
  return "Press Retry; if it fails again, see the server's log.";
}

export function Failure({
  error,
  what,
  onRetry,
  children,
}: {
  error: unknown;
  what: string;
  onRetry?: () => unknown;
  children?: ReactNode;
}) {
  const message = error instanceof Error ? error.message : String(error);
  const credential = useCredential();
  return (
    <div className="status status-error" role="alert">
      <div className="status-title">Could not load {what}</div>
      <div className="status-body">{message}</div>
      <div className="status-hint">{advice(error, credential)}</div>
      {error instanceof ApiError && (error.status === 401 || error.status === 403) && <KeyForm />}
      <div className="status-actions">
        {children}
        {onRetry && (
          <button type="button" className="btn" onClick={() => void onRetry()}>
            Retry
          </button>
        )}
      </div>
    </div>
  );
}
