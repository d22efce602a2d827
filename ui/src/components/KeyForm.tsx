// The read key (or Feast access token) the page sends, named as this server's
// authorizer takes it (hooks/useCredential.ts): the header's control,
// which says whether one is in use (never the key itself) and opens a small
// form to enter, change or forget it, and the form a 401 or 403 shows too.
// The key is kept for this browser tab only (api/http.ts).

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { hasApiKey, onApiKeyChange, setApiKey } from "../api/http";
import { capitalized, useCredential } from "../hooks/useCredential";

/** The event that opens the header's key form from elsewhere (an empty state's button). */
const OPEN_EVENT = "feast-lineage:open-key-form";

export function openKeyForm(): void {
  window.dispatchEvent(new Event(OPEN_EVENT));
}

/** Whether a key is in use, kept current. */
export function useKeyInUse(): boolean {
  return useSyncExternalStore(onApiKeyChange, hasApiKey);
}

/** Keep `key` (null: none) for this tab, and ask every query again with it. */
function useUseKey(): (key: string | null) => void {
  const queryClient = useQueryClient();
  return (key) => {
    setApiKey(key);
    void queryClient.resetQueries();
  };
}

/** Asks for what reads take (a read API key, a Feast access token): `onDone` after it is used, forgotten or the form is left. */
export function KeyForm({ onDone, autoFocus = false }: { onDone?: () => void; autoFocus?: boolean }) {
  const [key, setKey] = useState("");
  const useKey = useUseKey();
  const inUse = useKeyInUse();
  const { field } = useCredential();
  return (
    <form
      className="key-form"
      onSubmit={(e) => {
        e.preventDefault();
        useKey(key.trim() || null);
        setKey("");
        onDone?.();
      }}
    >
      <input
        type="password"
        value={key}
        onChange={(e) => setKey(e.target.value)}
        placeholder={field}
        aria-label={field}
        autoComplete="off"
        autoFocus={autoFocus}
      />
      <button type="submit" className="btn">
        Use this key
      </button>
      {inUse && (
        <button
          type="button"
          className="btn"
          onClick={() => {
            useKey(null);
            onDone?.();
          }}
        >
          Forget the key
        </button>
      )}
    </form>
  );
}

/** The header's control: "Read key: no key" or "key in use", opening the form. */
export function KeyControl({ offered }: { offered: boolean }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const inUse = useKeyInUse();
  const { ask } = useCredential();
  useEffect(() => {
    const onOpen = () => setOpen(true);
    window.addEventListener(OPEN_EVENT, onOpen);
    return () => window.removeEventListener(OPEN_EVENT, onOpen);
  }, []);
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      const target = e.target as Node;
      if (!box.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, [open]);
  if (!offered && !inUse) return null;
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  return (
    <div className="key-control">
      <button
        ref={button}
        type="button"
        className="key-button"
        aria-expanded={open}
        aria-haspopup="dialog"
        data-testid="key-control"
        onClick={() => setOpen((o) => !o)}
      >
        Read key: <strong>{inUse ? "key in use" : "no key"}</strong>
      </button>
      {open && (
        <div
          ref={box}
          className="key-popover"
          role="dialog"
          aria-label="Read key"
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.preventDefault();
              close();
            }
          }}
        >
          <p className="small">
            {inUse
              ? "A key is in use (kept for this browser tab only). Enter another to change it, or forget it."
              : `${capitalized(ask)} shows the projects it may see. It is kept for this browser tab only.`}
          </p>
          <KeyForm onDone={close} autoFocus />
        </div>
      )}
    </div>
  );
}
