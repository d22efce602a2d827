// Under a versions list: how many of how many are shown, and "Show older"
// for the next page while there is one.

interface Props {
  shown: number;
  total: number;
  loading: boolean;
  /** Asks for the next page; null: every version is shown. */
  onMore: (() => void) | null;
  testid: string;
}

export function ShowOlder({ shown, total, loading, onMore, testid }: Props) {
  if (total <= 1) return null;
  return (
    <p className="muted small versions-more" data-testid={testid}>
      {shown < total ? `The newest ${shown} of ${total} versions.` : `All ${total} versions.`}{" "}
      {onMore && (
        <button type="button" className="btn btn-small" onClick={onMore} disabled={loading} aria-busy={loading}>
          {loading ? "Loading…" : "Show older"}
        </button>
      )}
    </p>
  );
}
