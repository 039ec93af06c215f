// How an agent is named in the editor's agent picker. Names may repeat (two imports, a copy edited
// elsewhere), so when two visible agents would read the same, each of them also shows its id, which
// is also what the agents page lists (docs/decisions/workflows.md, "Import").
export interface AgentLike {
  id: number;
  name: string;
  role?: string | null;
  is_system?: boolean;
}

function base(a: AgentLike): string {
  return `${a.name}${a.role ? ` — ${a.role}` : ''}${a.is_system ? ' (system)' : ''}`;
}

/** Labels by agent id; ambiguous ones get ` · #id`. */
export function agentLabels(agents: readonly AgentLike[]): Map<number, string> {
  const count = new Map<string, number>();
  for (const a of agents) count.set(base(a), (count.get(base(a)) ?? 0) + 1);
  return new Map(agents.map((a) => [a.id, (count.get(base(a)) ?? 0) > 1 ? `${base(a)} · #${a.id}` : base(a)]));
}
