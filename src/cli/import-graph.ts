/**
 * The import graph at the level of a source tree's top: every folder directly under `root` is one node
 * (everything under it belongs to it), and every file directly in `root` is a node of its own. Pure, for
 * the import check (check-imports.ts) and its tests.
 */

export interface ImportEdge {
  from: string;
  to: string;
}

export interface TopLevelCycle {
  /** The nodes that import each other, in a stable order. */
  nodes: string[];
  /** One module-level import for each node-level edge inside the cycle, to show where it comes from. */
  edges: ImportEdge[];
}

/** The top-level node a path belongs to, or undefined outside `root`. */
export function topLevelNode(path: string, root: string): string | undefined {
  if (!path.startsWith(root + '/')) return undefined;
  const [first, ...rest] = path.slice(root.length + 1).split('/');
  return rest.length === 0 ? path : `${root}/${first}`;
}

/** The strongly connected groups of more than one node (Tarjan's algorithm), each a cycle to break. */
export function topLevelCycles(imports: ImportEdge[], root: string): TopLevelCycle[] {
  const edges = new Map<string, Map<string, ImportEdge>>();
  for (const edge of imports) {
    const from = topLevelNode(edge.from, root);
    const to = topLevelNode(edge.to, root);
    if (from === undefined || to === undefined || from === to) continue;
    let out = edges.get(from);
    if (!out) edges.set(from, (out = new Map()));
    if (!out.has(to)) out.set(to, edge);
  }

  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);

  return groups.map((nodes) => ({
    nodes,
    edges: nodes.flatMap((from) => [...(edges.get(from) ?? [])].filter(([to]) => nodes.includes(to)).map(([, edge]) => edge)),
  }));
}
