// Node ids as the API names them (the server's lineage_model.NodeId):
// "dataset:{namespace}:{name}", "field:{namespace}:{name}:{field}". A name or
// field keeps no ":" in an id (its "%" and ":" are written "%25" and "%3A"),
// so the last colon ends the namespace, which may hold colons of its own.

/** `text` as a name or field in an id. */
export function idPart(text: string): string {
  return text.replaceAll("%", "%25").replaceAll(":", "%3A");
}

/** A name or field as an id holds it, read back. */
export function fromIdPart(part: string): string {
  return part.replaceAll("%3A", ":").replaceAll("%25", "%");
}

/** The id of a job, a dataset or another node type the API names "{type}:{namespace}:{name}". */
export const nodeId = (type: string, namespace: string, name: string) => `${type}:${namespace}:${idPart(name)}`;

export const datasetId = (namespace: string, name: string) => nodeId("dataset", namespace, name);

/** The id of a field of a dataset; with field "" the prefix every field id of the dataset starts with. */
export const fieldId = (namespace: string, name: string, field: string) => `field:${namespace}:${idPart(name)}:${idPart(field)}`;
