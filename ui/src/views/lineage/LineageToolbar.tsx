// The Lineage tab's toolbar: search, the namespace (or project) filter, the
// "Feast only lineage" switch, which jobs to draw, the focus, the counts.

import type { LNode } from "../../graph/model";
import type { Lineage } from "../../hooks/useLineage";
import type { Navigate } from "../../route";
import { refPatch } from "../../selection";
import { FocusControls } from "./FocusControls";
import { SearchBox } from "./SearchBox";
import { TimeControl } from "./TimeControl";

interface Props {
  lineage: Lineage;
  navigate: Navigate;
  onFocus: (node: LNode) => void;
  onToggleFeast: (on: boolean) => void;
}

export function LineageToolbar({ lineage, navigate, onFocus, onToggleFeast }: Props) {
  const { registryView, consumer, params, focus, graph } = lineage;
  return (
    <div className="toolbar" role="toolbar" aria-label="Lineage controls">
      <SearchBox
        graph={lineage.fullGraph}
        serverSearch={!registryView && lineage.truncated}
        asOf={lineage.time.asOf}
        onPick={onFocus}
        onPickRef={(ref) => navigate({ ...refPatch(ref), ...refPatch(ref, "focus") }, { push: true })}
      />
      <label className="field">
        <span>{registryView ? "Project" : "Namespace"}</span>
        <select
          value={params.ns ?? ""}
          onChange={(e) => navigate({ ns: e.target.value || null, ...refPatch(null, "focus") }, { push: true })}
          aria-label={registryView ? "Project filter" : "Namespace filter"}
        >
          <option value="">{registryView ? "All projects" : "All namespaces"}</option>
          {lineage.nsOptions.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <label className={`switch ${consumer ? "" : "is-locked"}`} title={consumer ? "" : "The consumer is off"}>
        <input
          type="checkbox"
          checked={registryView}
          disabled={!consumer}
          onChange={(e) => onToggleFeast(e.target.checked)}
          aria-label="Feast only lineage"
        />
        <span className="switch-track" />
        Feast only lineage
      </label>
      {!registryView && (
        <label className="field" title="The jobs not shown are drawn as direct edges from their inputs to their outputs">
          <span>Jobs</span>
          <select
            value={params.jobs}
            onChange={(e) => navigate({ jobs: e.target.value === "runtime" ? null : e.target.value })}
            aria-label="Jobs shown"
          >
            <option value="runtime">all but Feast apply jobs</option>
            <option value="all">all jobs</option>
            <option value="none">none (datasets only)</option>
          </select>
        </label>
      )}
      {!registryView && consumer && <TimeControl time={lineage.time} navigate={navigate} />}
      {focus && <FocusControls name={focus.name} params={params} navigate={navigate} />}
      <span className="toolbar-spacer" />
      {graph && (
        <span className="counts" data-testid="graph-counts">
          {graph.nodes.length.toLocaleString("en-US")} nodes · {graph.edges.length.toLocaleString("en-US")} edges
        </span>
      )}
    </div>
  );
}
