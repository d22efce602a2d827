// A dataset drawn in the column view: a box listing its columns, the ones on
// the traced path first (the traced column marked), the rest folded behind
// "N more columns". A click on a column traces it; on the head, opens the
// dataset in the details panel.

import { Handle, Position, type NodeProps } from "@xyflow/react";
import { memo } from "react";
import { KIND_STYLES, type VisualKind } from "../../graph/kinds";
import { BOX_WIDTH, shownRows, type DatasetBox, type FieldRow } from "./model";

export type ColumnBoxData = {
  box: DatasetBox;
  kind: VisualKind;
  label: string;
  open: boolean;
  selected: boolean;
  onToggle: (boxId: string) => void;
  onTrace: (box: DatasetBox, field: string) => void;
  onOpen: (box: DatasetBox) => void;
};

function Row({ row, box, onTrace }: { row: FieldRow; box: DatasetBox; onTrace: ColumnBoxData["onTrace"] }) {
  const classes = ["crow", row.onPath ? "on-path" : "", row.traced ? "is-traced" : "", row.field === null ? "is-whole" : ""];
  const field = row.field;
  return (
    <div className={classes.join(" ")} data-field={field ?? ""} data-row-id={row.id}>
      {field === null ? (
        <span className="crow-name" title="Inputs that affect every column (filters, joins, grouping)">
          (whole dataset)
        </span>
      ) : (
        <button
          type="button"
          className="crow-name"
          title={row.traced ? `${field}: the traced column` : `Trace ${field}`}
          onClick={(e) => {
            e.stopPropagation();
            if (!row.traced) onTrace(box, field);
          }}
        >
          {field}
        </button>
      )}
      {row.type && <span className="crow-type">{row.type}</span>}
    </div>
  );
}

function ColumnBoxView({ data }: NodeProps & { data: ColumnBoxData }) {
  const { box, kind, label, open, selected, onToggle, onTrace, onOpen } = data;
  const style = KIND_STYLES[kind];
  const rows = shownRows(box, open);
  const aliases = box.aliases.length
    ? ` · ${box.aliases.length} alias${box.aliases.length === 1 ? "" : "es"}`
    : "";
  return (
    <div
      className={`cbox${selected ? " is-selected" : ""}`}
      style={{ width: BOX_WIDTH, borderColor: style.color }}
      data-box={box.name}
      data-namespace={box.namespace}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} className="cbox-handle" />
      <button
        type="button"
        className="cbox-head"
        style={{ background: style.fill }}
        onClick={() => onOpen(box)}
        title={[`${box.namespace} ${box.name}`, ...box.aliases.map((a) => `also ${a.namespace} ${a.name}`)].join("\n")}
      >
        <span className="cbox-badge" style={{ background: style.color }}>
          {style.label}
        </span>
        <span className="cbox-label">{label}</span>
        <span className="cbox-sub">
          {box.namespace}
          {aliases}
        </span>
      </button>
      {rows.map((row) => (
        <Row key={row.id} row={row} box={box} onTrace={onTrace} />
      ))}
      {box.rest.length > 0 && (
        <button type="button" className="cbox-fold" onClick={() => onToggle(box.id)} aria-expanded={open}>
          {open ? "fold the other columns" : `${box.rest.length} more column${box.rest.length === 1 ? "" : "s"}`}
        </button>
      )}
      <Handle type="source" position={Position.Right} isConnectable={false} className="cbox-handle" />
    </div>
  );
}

export const ColumnBox = memo(ColumnBoxView);
