// "+N more hops" at the edge of the column view, on a side where the traced
// path goes on past the depth shown: one click shows them (the depth grows
// by N). Pinned to the canvas's edge, so it is seen wherever the view is.

export interface MoreHopsProps {
  hops: number;
  way: "upstream" | "downstream";
  onExtend: (hops: number) => void;
}

export function MoreHops({ hops, way, onExtend }: MoreHopsProps) {
  const plural = hops === 1 ? "" : "s";
  const text = `+${hops} more hop${plural}`;
  return (
    <button
      type="button"
      className={`column-more column-more-${way}`}
      data-testid={`more-hops-${way}`}
      title={`The path goes on ${hops} more hop${plural} ${way}: show ${hops === 1 ? "it" : "them"}`}
      onClick={() => onExtend(hops)}
    >
      {way === "upstream" ? `← ${text}` : `${text} →`}
      <span className="muted">{way}</span>
    </button>
  );
}
