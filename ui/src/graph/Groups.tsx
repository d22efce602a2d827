// The frames of the graph's separate pipelines, drawn under the nodes in the
// graph's own coordinates (see groups.ts).

import { ViewportPortal } from "@xyflow/react";
import type { GroupBox } from "./groups";

export function Groups({ boxes }: { boxes: GroupBox[] }) {
  if (boxes.length === 0) return null;
  return (
    <ViewportPortal>
      {boxes.map((box) => (
        <div
          key={box.id}
          className="lgroup"
          data-nodes={box.nodes}
          style={{ transform: `translate(${box.left}px, ${box.top}px)`, width: box.width, height: box.height }}
        />
      ))}
    </ViewportPortal>
  );
}
