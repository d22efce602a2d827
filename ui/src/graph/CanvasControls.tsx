// The canvas's controls: zoom buttons, "fit the whole graph", and (for graphs
// small enough to draw as DOM nodes) React Flow's minimap; large graphs have
// a NavMap instead.

import { ControlButton, Controls, MiniMap } from "@xyflow/react";
import type { LineageNodeData } from "./elements";
import { KIND_STYLES } from "./kinds";

export function CanvasControls({ big, onFit }: { big: boolean; onFit: () => void }) {
  return (
    <>
      <Controls showInteractive={false} showFitView={false} position="bottom-left">
        <ControlButton
          className="react-flow__controls-fitview"
          title="Fit the whole graph"
          aria-label="Fit view"
          onClick={onFit}
        >
          <svg viewBox="0 0 32 30" aria-hidden>
            <path d="M3.7 11.1V3.7h7.4V0H0v11.1h3.7zM3.7 18.9H0V30h11.1v-3.7H3.7v-7.4zM28.3 0h-7.4v3.7h7.4v7.4H32V0h-3.7zM28.3 26.3h-7.4V30H32V18.9h-3.7v7.4z" />
          </svg>
        </ControlButton>
      </Controls>
      {!big && (
        <MiniMap
          pannable
          zoomable
          position="bottom-right"
          nodeColor={(n) => KIND_STYLES[(n.data as LineageNodeData).node.kind].color}
          maskColor="rgba(241,245,249,0.7)"
        />
      )}
    </>
  );
}
