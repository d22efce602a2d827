// Search the graph by name, namespace or alias; picking a result focuses it.
// When the graph shown is only part of the store, the server's job and
// dataset search adds what is not loaded.

import { useEffect, useId, useMemo, useRef, useState } from "react";
import { useNodeSearch, type NodeRef } from "../../api/queries";
import { KindBadge } from "../../components/Badges";
import type { LGraph, LNode } from "../../graph/model";
import { useDebouncedValue } from "../../hooks/useDebouncedValue";
import { nodeId } from "../../nodeId";

interface Props {
  graph: LGraph | null;
  serverSearch: boolean;
  onPick: (node: LNode) => void;
  onPickRef: (ref: NodeRef) => void;
  /** The time control's instant: the server's search finds the jobs and datasets of then; null: now. */
  asOf?: string | null;
}

const MAX = 12;

function score(node: LNode, q: string): number {
  const label = node.label.toLowerCase();
  const full = (node.ol?.name ?? node.reg?.name ?? "").toLowerCase();
  if (label === q || full === q) return 0;
  if (label.startsWith(q) || full.startsWith(q)) return 1;
  if (label.includes(q) || full.includes(q)) return 2;
  if (node.sublabel.toLowerCase().includes(q)) return 3;
  if (node.aliases.some((a) => a.name.toLowerCase().includes(q) || a.namespace.toLowerCase().includes(q))) return 4;
  return -1;
}

export function SearchBox({ graph, serverSearch, onPick, onPickRef, asOf = null }: Props) {
  const [text, setText] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const box = useRef<HTMLDivElement>(null);
  const listId = useId();
  const optionId = (i: number) => `${listId}-option-${i}`;
  const q = text.trim().toLowerCase();

  const local = useMemo(() => {
    if (!graph || !q) return [];
    const hits: [number, LNode][] = [];
    for (const node of graph.nodes) {
      const s = score(node, q);
      if (s >= 0) hits.push([s, node]);
    }
    hits.sort((a, b) => a[0] - b[0] || a[1].label.localeCompare(b[1].label));
    return hits.slice(0, MAX).map(([, node]) => node);
  }, [graph, q]);

  // The server is asked once the text has settled for 200 ms.
  const settled = useDebouncedValue(q, 200);
  const search = useNodeSearch(settled, serverSearch && settled.length >= 2, asOf);
  const remote = serverSearch && q.length >= 2 ? (search.data ?? []) : [];

  const localIds = new Set(local.map((n) => n.id));
  const extra = remote.filter((r) => !localIds.has(graph?.drawnAs.get(nodeId(r.type, r.namespace, r.name)) ?? ""));
  const total = local.length + extra.length;

  useEffect(() => {
    const onDoc = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", onDoc);
    return () => document.removeEventListener("mousedown", onDoc);
  }, []);

  const pick = (index: number) => {
    if (index < local.length) onPick(local[index]);
    else if (extra[index - local.length]) onPickRef(extra[index - local.length]);
    else return;
    setOpen(false);
    setText("");
  };

  const expanded = open && q !== "";
  return (
    <div className="search" ref={box}>
      <input
        type="search"
        role="combobox"
        placeholder="Search nodes…"
        value={text}
        aria-label="Search nodes"
        aria-autocomplete="list"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-activedescendant={expanded && total > 0 ? optionId(active) : undefined}
        onChange={(e) => {
          setText(e.target.value);
          setOpen(true);
          setActive(0);
        }}
        onFocus={() => setOpen(true)}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown") {
            e.preventDefault();
            setActive((a) => Math.min(total - 1, a + 1));
          } else if (e.key === "ArrowUp") {
            e.preventDefault();
            setActive((a) => Math.max(0, a - 1));
          } else if (e.key === "Enter") {
            e.preventDefault();
            pick(active);
          } else if (e.key === "Escape" && expanded) {
            // (The results only: the page's Escape, which closes the panel, waits for the next.)
            e.preventDefault();
            setOpen(false);
          }
        }}
      />
      {/* The listbox is always there (aria-controls names it), empty and hidden while closed. */}
      <ul id={listId} className="search-results" role="listbox" aria-label="Search results" hidden={!expanded}>
          {expanded && total === 0 && (
            <li className="search-none" role="option" aria-disabled="true" aria-selected="false">
              No node matches “{text}”.
            </li>
          )}
          {expanded && local.map((node, i) => (
            <li
              key={node.id}
              id={optionId(i)}
              role="option"
              aria-selected={i === active}
              className={i === active ? "is-active" : ""}
              onMouseDown={(e) => {
                e.preventDefault();
                pick(i);
              }}
              onMouseEnter={() => setActive(i)}
            >
              <KindBadge kind={node.kind} />
              <span className="search-name">{node.label}</span>
              <span className="search-ns">{node.sublabel}</span>
            </li>
          ))}
          {expanded && extra.map((ref, j) => {
            const i = local.length + j;
            return (
              <li
                key={nodeId(ref.type, ref.namespace, ref.name)}
                id={optionId(i)}
                role="option"
                aria-selected={i === active}
                className={i === active ? "is-active" : ""}
                onMouseDown={(e) => {
                  e.preventDefault();
                  pick(i);
                }}
                onMouseEnter={() => setActive(i)}
              >
                <KindBadge kind={ref.type === "job" ? "job" : "dataset"} />
                <span className="search-name">{ref.name}</span>
                <span className="search-ns">{ref.namespace} (not loaded)</span>
              </li>
            );
          })}
      </ul>
    </div>
  );
}
