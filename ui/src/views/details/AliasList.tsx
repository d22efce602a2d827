// The other names of a dataset drawn as one node; a click looks one up in the Datasets tab.

import { producerLabel } from "../../format";
import type { Alias } from "../../graph/model";
import type { Navigate } from "../../route";

export function AliasList({ aliases, navigate }: { aliases: Alias[]; navigate: Navigate }) {
  return (
    <ul className="aliases" data-testid="aliases">
      {aliases.map((a) => (
        <li key={a.id}>
          <button
            type="button"
            className="link"
            onClick={() => navigate({ tab: "datasets", q: a.name, offset: null }, { push: true })}
            title="Find it among the datasets"
          >
            <span className="mono">{a.namespace}</span> <span className="mono strong">{a.name}</span>
          </button>{" "}
          <span className="muted">
            {a.type ? `${a.type}, ` : ""}
            {a.via === "symlink" ? "symlink" : "same dataSource URI"}
            {a.node?.producer ? `, from ${producerLabel(a.node.producer)}` : ""}
          </span>
        </li>
      ))}
    </ul>
  );
}
