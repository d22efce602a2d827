// What this server's reads take, in words, from the settings' authorizer: a
// read API key under `api_keys`, a Feast access token under `feast` (or the
// admin API key, when the server has one: it takes either), and both, with
// "ask which", only where the page cannot tell (the settings not read yet, or
// an open server, which asks for none).

import { useSettings } from "../api/queries";
import type { UiSettings } from "../types";

export interface Credential {
  /** What to enter, in a sentence: "an API key", "your Feast access token". */
  ask: string;
  /** The field's name: "API key", "Feast access token". */
  field: string;
  /** The page cannot tell (the settings not read yet, or an open server): then it says to ask which. */
  unknown: boolean;
}

const API_KEY: Credential = { ask: "an API key", field: "API key", unknown: false };
const TOKEN: Credential = { ask: "your Feast access token", field: "Feast access token", unknown: false };
const TOKEN_OR_ADMIN_KEY: Credential = {
  ask: "your Feast access token (or the server's admin API key)",
  field: "Feast access token or admin API key",
  unknown: false,
};
const EITHER: Credential = { ask: "an API key or your Feast access token", field: "API key or access token", unknown: true };

export function credentialOf(settings: Pick<UiSettings, "authorizer" | "admin_key"> | undefined): Credential {
  if (settings?.authorizer === "api_keys") return API_KEY;
  if (settings?.authorizer === "feast") return settings.admin_key ? TOKEN_OR_ADMIN_KEY : TOKEN;
  return EITHER;
}

/** What this server's reads take (the settings are read once and kept). */
export function useCredential(): Credential {
  return credentialOf(useSettings().data);
}

/** "an API key" -> "An API key": `ask` at the start of a sentence. */
export function capitalized(ask: string): string {
  return ask.charAt(0).toUpperCase() + ask.slice(1);
}
