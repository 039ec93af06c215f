/**
 * The seeded system PDLC pack, as data: one skill and one agent per stage, and the graph
 * start → discover → gate → design → gate → … → iterate. pdlc-seed.service.ts writes it at boot.
 * Each stage reads the artifacts of the stages before it and writes one artifact of its own, so a
 * project's workspace tells the whole story in docs/.
 */
import { autoLayout, START, type GraphEdge, type GraphNode } from '@service/workflow-graph';
import type { ToolName } from '../runtime/runtime.types';

export interface PdlcStage {
  stage: string;
  /** The workspace path this stage's agent writes (the agent node's `config.artifact`). */
  artifact: string;
  skill: { name: string; description: string; prompt_md: string; tool_allowlist: ToolName[]; artifact_hint: string };
  agent: { name: string; role: string; system_prompt: string; tool_allowlist: ToolName[]; max_iterations: number };
}

const READ_TOOLS: ToolName[] = ['list_files', 'read_file', 'search_files'];
const ALL_TOOLS: ToolName[] = ['list_files', 'read_file', 'search_files', 'write_file', 'edit_file'];

const SHARED_RULES = `
Working rules:
- Start by listing the workspace and reading the artifacts named below; never invent what a file says.
- Write your artifact as Markdown at the path given in the stage context, replacing any older draft of it.
- Keep it concrete: names, numbers, decisions and open questions, not generic advice.
- End your reply with a short summary of what you wrote and what the next stage should look at.`;

function agentPrompt(role: string, purpose: string, reads: string, writes: string): string {
  return `You are the ${role} of a product team, working inside a project workspace of files.

Purpose of this stage: ${purpose}

Read first: ${reads}
Write: ${writes}
${SHARED_RULES}`;
}

export const PDLC_PACK = {
  slug: 'pdlc',
  name: 'Product Development Lifecycle',
  description:
    'From a raw idea to a shipped, measured product: discover the problem, design the solution, build it, ' +
    'test it, release it and learn from it. One agent per stage writes one document in docs/; a gate after ' +
    'each stage lets you review that document before the next stage starts.',
  domain: 'pdlc',
  stages: ['discover', 'design', 'develop', 'test', 'deploy', 'iterate'],
} as const;

export const PDLC_STAGES: readonly PdlcStage[] = [
  {
    stage: 'discover',
    artifact: 'docs/discovery.md',
    skill: {
      name: 'PDLC: Discovery',
      description: 'Frame the problem: who has it, how they cope today, what success would look like.',
      prompt_md: `## Discovery
Turn the user's idea and any notes in the workspace into a problem statement worth building for.

\`docs/discovery.md\` has these sections:
1. **Problem** — one paragraph, in the users' words where possible.
2. **Users** — the primary and secondary users, their jobs to be done.
3. **Current alternatives** — what they do today and why it falls short.
4. **Goals and non-goals** — measurable goals (metric, baseline, target) and what is explicitly out of scope.
5. **Assumptions and risks** — each with how we could test it cheaply.
6. **Open questions** — for the user to answer before design.

Ask for what is missing instead of guessing; mark guesses as assumptions.`,
      tool_allowlist: [...ALL_TOOLS],
      artifact_hint: 'docs/discovery.md',
    },
    agent: {
      name: 'PDLC Discovery Analyst',
      role: 'Product discovery analyst',
      system_prompt: agentPrompt(
        'product discovery analyst',
        'understand the problem before anyone designs a solution — who the users are, what hurts, and how we will know we helped.',
        'any notes, briefs or research the user put in the workspace (README.md, notes/, research/), and the conversation.',
        'docs/discovery.md — the problem statement, users, alternatives, goals with metrics, risks and open questions.',
      ),
      tool_allowlist: [...ALL_TOOLS],
      max_iterations: 8,
    },
  },
  {
    stage: 'design',
    artifact: 'docs/design.md',
    skill: {
      name: 'PDLC: Solution design',
      description: 'Shape a solution that meets the discovery goals, with scope, flows and architecture.',
      prompt_md: `## Solution design
Design the smallest solution that reaches the goals in \`docs/discovery.md\`.

\`docs/design.md\` has these sections:
1. **Summary** — the solution in three sentences, tied to the discovery goals.
2. **Scope** — the user stories for the first release (as a …, I want …, so that …) with acceptance criteria; later ideas listed separately.
3. **User flows** — the main flows step by step, including empty and error states.
4. **Architecture** — components, data model, external interfaces, and why this shape.
5. **Alternatives considered** — at least one, and why it lost.
6. **Risks and mitigations**, **open questions**.`,
      tool_allowlist: [...ALL_TOOLS],
      artifact_hint: 'docs/design.md',
    },
    agent: {
      name: 'PDLC Solution Designer',
      role: 'Product and solution designer',
      system_prompt: agentPrompt(
        'product and solution designer',
        'decide what we build first and how it fits together, so that development can start without guesswork.',
        'docs/discovery.md (the goals and constraints you must honour) and any existing code or diagrams in the workspace.',
        'docs/design.md — scope with acceptance criteria, user flows, architecture, alternatives and risks.',
      ),
      tool_allowlist: [...ALL_TOOLS],
      max_iterations: 8,
    },
  },
  {
    stage: 'develop',
    artifact: 'docs/implementation.md',
    skill: {
      name: 'PDLC: Implementation',
      description: 'Build the designed scope in small verifiable steps and record how it was built.',
      prompt_md: `## Implementation
Implement the scope of \`docs/design.md\` in the workspace, one user story at a time.

- Create or edit source files with the file tools; keep changes small and consistent with existing code.
- Follow the acceptance criteria literally; if the design is ambiguous, choose the simplest reading and note it.

\`docs/implementation.md\` records: the files created or changed and why, how each story's acceptance criteria
are met, decisions taken while building, known limitations, and how to run it.`,
      tool_allowlist: [...ALL_TOOLS],
      artifact_hint: 'docs/implementation.md',
    },
    agent: {
      name: 'PDLC Developer',
      role: 'Software engineer',
      system_prompt: agentPrompt(
        'software engineer',
        'turn the design into working code in the workspace, story by story, without gold-plating.',
        'docs/design.md (scope and acceptance criteria), docs/discovery.md for context, and the existing source files.',
        'the source files themselves, then docs/implementation.md — what changed, how each story is met, decisions and limitations.',
      ),
      tool_allowlist: [...ALL_TOOLS],
      max_iterations: 12,
    },
  },
  {
    stage: 'test',
    artifact: 'docs/test-plan.md',
    skill: {
      name: 'PDLC: Test planning',
      description: 'Check the build against the acceptance criteria and write down what was tested and found.',
      prompt_md: `## Test planning
Verify the implementation against every acceptance criterion in \`docs/design.md\`.

\`docs/test-plan.md\` has: a table of test cases (id, story, steps, expected result, status), edge and error
cases, non-functional checks (performance, security, accessibility) that apply, the defects found with
severity and the file they are in, and a clear verdict: ready to release or not, and why.`,
      tool_allowlist: [...ALL_TOOLS],
      artifact_hint: 'docs/test-plan.md',
    },
    agent: {
      name: 'PDLC QA Engineer',
      role: 'Quality assurance engineer',
      system_prompt: agentPrompt(
        'quality assurance engineer',
        'find out whether what was built does what the design promised, before users do.',
        'docs/design.md (acceptance criteria), docs/implementation.md (what was built and its known limitations) and the source files.',
        'docs/test-plan.md — test cases with status, edge cases, defects with severity, and a release verdict.',
      ),
      tool_allowlist: [...ALL_TOOLS],
      max_iterations: 10,
    },
  },
  {
    stage: 'deploy',
    artifact: 'docs/release.md',
    skill: {
      name: 'PDLC: Release',
      description: 'Plan a safe release: notes for users, rollout and rollback, and what to watch.',
      prompt_md: `## Release
Prepare the release of what passed testing.

\`docs/release.md\` has: release notes written for users (what is new, what changed, known issues from the
test plan), the rollout plan (steps, order, who does what), the rollback plan, the configuration and data
changes involved, and the metrics and alerts to watch in the first days — tied to the discovery goals.`,
      tool_allowlist: [...ALL_TOOLS],
      artifact_hint: 'docs/release.md',
    },
    agent: {
      name: 'PDLC Release Manager',
      role: 'Release manager',
      system_prompt: agentPrompt(
        'release manager',
        'ship safely: users know what changed, the team knows how to roll out and back, and everyone knows what to watch.',
        'docs/test-plan.md (verdict, open defects), docs/implementation.md (how to run it) and docs/discovery.md (the goals to measure).',
        'docs/release.md — release notes, rollout and rollback plans, configuration changes and the metrics to watch.',
      ),
      tool_allowlist: [...ALL_TOOLS],
      max_iterations: 8,
    },
  },
  {
    stage: 'iterate',
    artifact: 'docs/retro.md',
    skill: {
      name: 'PDLC: Retrospective',
      description: 'Learn from the release: results against goals, what went well, what to change next.',
      prompt_md: `## Retrospective and next iteration
Close the loop on this cycle.

\`docs/retro.md\` has: results against each goal in \`docs/discovery.md\` (or how to measure them if no data yet),
what went well, what did not and why, user feedback gathered, and a prioritised list of next steps —
each tagged as a fix, an improvement or a new discovery question for the next cycle.`,
      tool_allowlist: [...READ_TOOLS, 'write_file', 'edit_file'],
      artifact_hint: 'docs/retro.md',
    },
    agent: {
      name: 'PDLC Product Lead',
      role: 'Product lead',
      system_prompt: agentPrompt(
        'product lead',
        'measure what the release achieved, learn from the cycle, and decide what the next iteration tackles.',
        'every document in docs/ — discovery.md, design.md, implementation.md, test-plan.md and release.md — plus any feedback files.',
        'docs/retro.md — results against goals, lessons, feedback and a prioritised backlog for the next cycle.',
      ),
      tool_allowlist: [...ALL_TOOLS],
      max_iterations: 8,
    },
  },
];

export const pdlcAgentNodeKey = (stage: string) => stage;
export const pdlcGateNodeKey = (stage: string) => `${stage}-gate`;

/** The pack's graph, given the seeded agent id of each stage. */
export function pdlcGraph(agentIdByStage: ReadonlyMap<string, number>): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  let previous: string = START;
  PDLC_STAGES.forEach((s, i) => {
    const agentKey = pdlcAgentNodeKey(s.stage);
    const agentId = agentIdByStage.get(s.stage);
    if (agentId === undefined) throw new Error(`PDLC seed: no agent for stage ${s.stage}`);
    nodes.push({
      node_key: agentKey,
      type: 'agent',
      agent_id: agentId,
      stage_label: s.stage,
      config: { artifact: s.artifact },
      position_x: 0,
      position_y: 0,
    });
    edges.push({ from_node: previous, to_node: agentKey, condition: null });
    previous = agentKey;
    if (i === PDLC_STAGES.length - 1) return;
    const gateKey = pdlcGateNodeKey(s.stage);
    nodes.push({
      node_key: gateKey,
      type: 'gate',
      agent_id: null,
      stage_label: s.stage,
      config: {},
      position_x: 0,
      position_y: 0,
    });
    edges.push({ from_node: agentKey, to_node: gateKey, condition: null });
    previous = gateKey;
  });
  // Canvas positions: the shared auto layout (one lane per stage, agent then its gate), so the pack
  // and its clones open readable (issue 13 item 5).
  return autoLayout(
    { nodes, edges },
    PDLC_STAGES.map((s) => s.stage),
  );
}
