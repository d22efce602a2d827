// A readable, foldable view of a JSON value.

import { useState } from "react";

function Scalar({ value }: { value: unknown }) {
  if (value === null) return <span className="j-null">null</span>;
  if (typeof value === "string") return <span className="j-str">"{value}"</span>;
  if (typeof value === "number") return <span className="j-num">{value}</span>;
  if (typeof value === "boolean") return <span className="j-bool">{String(value)}</span>;
  return <span>{String(value)}</span>;
}

interface EntryProps {
  name: string | null;
  value: unknown;
  depth: number;
  openDepth: number;
}

function Entry({ name, value, depth, openDepth }: EntryProps) {
  const composite = value !== null && typeof value === "object";
  const [open, setOpen] = useState(depth < openDepth);
  const key = name !== null && <span className="j-key">{name}: </span>;
  if (!composite) {
    return (
      <div className="j-line">
        {key}
        <Scalar value={value} />
      </div>
    );
  }
  const isArray = Array.isArray(value);
  const entries = isArray
    ? (value as unknown[]).map((v, i) => [String(i), v] as const)
    : Object.entries(value as Record<string, unknown>);
  const [openMark, closeMark] = isArray ? ["[", "]"] : ["{", "}"];
  if (entries.length === 0) {
    return (
      <div className="j-line">
        {key}
        <span className="j-punct">
          {openMark}
          {closeMark}
        </span>
      </div>
    );
  }
  return (
    <div className="j-block">
      <button type="button" className="j-toggle" onClick={() => setOpen(!open)} aria-expanded={open}>
        {open ? "▾" : "▸"}
      </button>
      {key}
      <span className="j-punct">{openMark}</span>
      {open ? (
        <div className="j-children">
          {entries.map(([k, v]) => (
            <Entry key={k} name={isArray ? null : k} value={v} depth={depth + 1} openDepth={openDepth} />
          ))}
        </div>
      ) : (
        <span className="j-summary" onClick={() => setOpen(true)}>
          {" "}
          {entries.length} {isArray ? "items" : "keys"}{" "}
        </span>
      )}
      <span className="j-punct">{closeMark}</span>
    </div>
  );
}

/** `openDepth`: how many levels start unfolded. */
export function JsonView({ value, openDepth = 3 }: { value: unknown; openDepth?: number }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    navigator.clipboard?.writeText(JSON.stringify(value, null, 2)).then(
      () => {
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      },
      () => undefined,
    );
  };
  return (
    <div className="json">
      <button type="button" className="btn btn-small json-copy" onClick={copy}>
        {copied ? "Copied" : "Copy JSON"}
      </button>
      <Entry name={null} value={value} depth={0} openDepth={openDepth} />
    </div>
  );
}
