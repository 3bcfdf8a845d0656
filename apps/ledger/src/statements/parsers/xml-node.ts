/** An element of a parsed XML tree: children by name, attributes as `@name`, text as `#text`. */
export type XmlNode = Record<string, unknown>;

/** The value at `path` under `node`, or undefined where the path leaves the tree. */
export function child(node: unknown, ...path: string[]): unknown {
  let at: unknown = node;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as XmlNode)[key];
  }
  return at;
}
