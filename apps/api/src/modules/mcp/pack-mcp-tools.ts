/**
 * The tools `/mcp` offers a desktop assistant or an IDE (docs/API.md "Packs as an MCP server"), bound
 * to the caller: list their projects, send a message to a project and get the reply (the sync chat
 * turn), approve a pending gate (an `advance` turn), read a workspace file. A refusal (DomainError) is
 * a tool result with `isError` and the problem's detail; anything else is logged and reported as an
 * internal failure, never with its message.
 */
import { Logger } from '@nestjs/common';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { DomainError } from '../../platform/errors/domain-error';
import { errorInfo } from '../../platform/logging/error-info';
import type { AuthUser } from '../auth/user.entity';
import type { ChatService } from '../chat/chat.service';
import { MAX_MESSAGE } from '../chat/dto/chat.dto';
import type { ProjectsService } from '../projects/projects.service';
import type { TurnResult } from '../runtime/runtime.types';

export interface PackToolDeps {
  chat: ChatService;
  projects: ProjectsService;
}

const project = z
  .string()
  .regex(/^[a-z0-9-]{1,64}$/)
  .describe('the project slug (see list_projects)');

export function registerPackTools(server: McpServer, user: AuthUser, deps: PackToolDeps): void {
  server.registerTool(
    'list_projects',
    {
      description: 'List your projects: slug, name, pack domain, current stage and the gate awaiting approval, if any.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    () =>
      guarded(async () => {
        const list = await deps.projects.list(user);
        const rows = list.map((p) => ({
          slug: p.slug,
          name: p.name,
          domain: p.domain,
          stage: p.stage,
          awaiting_gate: p.awaiting_gate,
        }));
        return json({ projects: rows });
      }),
  );

  server.registerTool(
    'send_message',
    {
      description:
        "Send a message to a project's pack and wait for the reply (one turn: the stage's agents run, may use tools, and stop at a gate).",
      inputSchema: { project, message: z.string().min(1).max(MAX_MESSAGE) },
    },
    ({ project: slug, message }) => guarded(() => turn(deps, user, { project_slug: slug, message })),
  );

  server.registerTool(
    'approve_gate',
    {
      description:
        'Approve the gate a project is waiting at and run the next stage (optionally with a message for it). Fails when no gate is pending.',
      inputSchema: { project, message: z.string().max(MAX_MESSAGE).optional() },
    },
    ({ project: slug, message }) =>
      guarded(async () => {
        const state = await deps.projects.get(user, slug);
        if (!state.awaiting_gate)
          throw new DomainError(
            'conflict',
            `Project "${slug}" is not waiting at a gate (stage ${state.stage ?? 'none'}).`,
          );
        return turn(deps, user, { project_slug: slug, message: message ?? '', advance: true });
      }),
  );

  server.registerTool(
    'read_file',
    {
      description: 'Read a file of a project workspace (the latest revision, or the revision given).',
      inputSchema: {
        project,
        path: z.string().min(1).max(1024).describe('file path relative to the workspace root, e.g. docs/prd.md'),
        revision: z.number().int().min(1).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    ({ project: slug, path, revision }) =>
      guarded(async () => {
        const file = await deps.projects.readFile(user, slug, path.split('/'), revision);
        return { content: [{ type: 'text', text: file.content }] };
      }),
  );
}

async function turn(
  deps: PackToolDeps,
  user: AuthUser,
  input: { project_slug: string; message: string; advance?: boolean },
): Promise<CallToolResult> {
  const started = await deps.chat.startProjectTurn(user, input, 'chat');
  const r: TurnResult = await started.result;
  if (r.error) throw new DomainError(`turn.${r.error.code}`, `${r.error.message} (run ${started.runId})`);
  const summary = {
    run_id: started.runId,
    stage: r.stage,
    agent: r.agent?.name ?? null,
    awaiting_gate: r.awaiting_gate,
    files_changed: r.files_changed.map(({ path, change }) => ({ path, change })),
  };
  return {
    content: [
      { type: 'text', text: r.reply || `(no agent ran: the project is at stage ${r.stage})` },
      { type: 'text', text: JSON.stringify(summary) },
    ],
  };
}

const json = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });

async function guarded(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof DomainError) return { isError: true, content: [{ type: 'text', text: e.detail }] };
    new Logger('PackMcp').error({ err: errorInfo(e) }, 'an /mcp tool failed unexpectedly');
    return { isError: true, content: [{ type: 'text', text: 'The tool failed unexpectedly; see the server log.' }] };
  }
}
