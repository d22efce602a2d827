// How many steps and which way: the depth and direction controls of the
// focus view and the column view, kept in the URL (`depth`, `dir`).

import type { Navigate } from "../route";

export const DEPTHS = [1, 2, 3, 4, 5, 10, 20];

interface Props {
  depth: number;
  direction: string;
  navigate: Navigate;
  /** The controls' accessible names: "Depth" and "Direction" after it ("Column depth"). */
  what?: string;
}

export function DepthDirection({ depth, direction, navigate, what }: Props) {
  const name = (control: string) => (what ? `${what} ${control.toLowerCase()}` : control);
  return (
    <>
      <label className="field">
        <span>Depth</span>
        <select value={depth} onChange={(e) => navigate({ depth: e.target.value })} aria-label={name("Depth")}>
          {DEPTHS.map((d) => (
            <option key={d} value={d}>
              {d === 20 ? "all (20)" : d}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Direction</span>
        <select
          value={direction}
          onChange={(e) => navigate({ dir: e.target.value === "both" ? null : e.target.value })}
          aria-label={name("Direction")}
        >
          <option value="both">upstream and downstream</option>
          <option value="upstream">upstream</option>
          <option value="downstream">downstream</option>
        </select>
      </label>
    </>
  );
}
