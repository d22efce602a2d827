// Paging through a list the server pages: first, previous, next, last.

export function Pager({
  offset,
  limit,
  total,
  onOffset,
  noun,
}: {
  offset: number;
  limit: number;
  total: number;
  onOffset: (offset: number) => void;
  noun: string;
}) {
  const page = Math.floor(offset / limit) + 1;
  const pages = Math.max(1, Math.ceil(total / limit));
  const last = (pages - 1) * limit;
  const from = total === 0 ? 0 : offset + 1;
  const to = Math.min(offset + limit, total);
  return (
    <nav className="pager" aria-label={`${noun} pages`}>
      <span className="pager-count" data-testid="pager-count">
        {from.toLocaleString("en-US")}–{to.toLocaleString("en-US")} of {total.toLocaleString("en-US")} {noun}
      </span>
      <button type="button" className="btn" disabled={offset === 0} onClick={() => onOffset(0)} aria-label="First page">
        «
      </button>
      <button
        type="button"
        className="btn"
        disabled={offset === 0}
        onClick={() => onOffset(Math.max(0, offset - limit))}
        aria-label="Previous page"
      >
        ‹ Previous
      </button>
      <span className="pager-page">
        page {page} of {pages}
      </span>
      <button
        type="button"
        className="btn"
        disabled={offset + limit >= total}
        onClick={() => onOffset(offset + limit)}
        aria-label="Next page"
      >
        Next ›
      </button>
      <button
        type="button"
        className="btn"
        disabled={offset >= last}
        onClick={() => onOffset(last)}
        aria-label="Last page"
      >
        »
      </button>
    </nav>
  );
}
