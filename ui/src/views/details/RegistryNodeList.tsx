// Registry objects linked to the one shown (what it is built from, what
// uses it); each opens in the panel.

import { KindBadge } from "../../components/Badges";
import type { RegistryNode } from "../../types";
import { registryKind } from "./definition";

export function RegistryNodeList({
  nodes,
  none,
  onOpen,
}: {
  nodes: RegistryNode[];
  /** What to say when there is none. */
  none: string;
  onOpen: (node: RegistryNode) => void;
}) {
  if (nodes.length === 0) return <p className="muted">{none}</p>;
  return (
    <ul className="plain">
      {nodes.map((n) => (
        <li key={n.id}>
          <KindBadge kind={registryKind(n.type, n.missing)} />{" "}
          <button type="button" className="link" onClick={() => onOpen(n)}>
            {n.name}
          </button>
        </li>
      ))}
    </ul>
  );
}
