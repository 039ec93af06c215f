/**
 * The ReAct loop (SPEC §7.2): call the model with the tools the agent may use, run the tool calls it
 * asks for, feed the results back, until it answers without tool calls or `max_iterations` model calls.
 */
import type { ChatMessage, Provider, ToolCall } from './providers/provider';
import type { FileChangeInfo, ResolvedAgent, ResolvedModel, RuntimeEvent, ToolName, Usage, Workspace } from './runtime.types';
import { runTool, toolSpecs } from './tools';

export interface LoopInput {
  agent: ResolvedAgent;
  model: ResolvedModel | null;
  provider: Provider;
  modelName: string;
  system: string;
  messages: ChatMessage[];
  workspace: Workspace;
  written: Set<string>;
  signal: AbortSignal;
}

export interface LoopResult {
  reply: string;
  usage: Usage;
  toolCalls: Array<{ name: string; arguments: unknown; ok: boolean }>;
  files: FileChangeInfo[];
  /** set when the loop stopped on max_iterations */
  error: { code: string; message: string } | null;
}

export async function* reactLoop(input: LoopInput): AsyncGenerator<RuntimeEvent, LoopResult> {
  // A read-only workspace (the demo) offers no writing tools at all.
  const allowed: ToolName[] = input.workspace.readOnly ? input.agent.tools.filter((t) => t !== 'write_file' && t !== 'edit_file') : input.agent.tools;
  const tools = toolSpecs(allowed);
  const messages = [...input.messages];
  const usage: Usage = { input_tokens: 0, output_tokens: 0 };
  const toolCalls: LoopResult['toolCalls'] = [];
  const files: FileChangeInfo[] = [];
  const max = Math.max(1, input.agent.max_iterations);

  for (let call = 1; call <= max; call++) {
    let text = '';
    const calls: ToolCall[] = [];
    for await (const ev of input.provider.stream({
      system: input.system,
      messages,
      tools,
      model: input.modelName,
      temperature: input.model?.temperature ?? undefined,
      maxTokens: input.model?.max_tokens ?? undefined,
      signal: input.signal,
    })) {
      if (ev.type === 'text') {
        if (ev.delta) {
          text += ev.delta;
          yield { event: 'content', data: { delta: ev.delta } };
        }
      } else if (ev.type === 'tool_call') calls.push(ev.call);
      else if (ev.type === 'usage') {
        usage.input_tokens += ev.input_tokens;
        usage.output_tokens += ev.output_tokens;
      }
    }
    if (!calls.length) return { reply: text, usage, toolCalls, files, error: null };
    if (call === max) {
      return {
        reply: text,
        usage,
        toolCalls,
        files,
        error: { code: 'max_iterations', message: `The agent reached its limit of ${max} model calls without a final answer.` },
      };
    }
    messages.push({ role: 'assistant', content: text, tool_calls: calls });
    for (const c of calls) {
      yield { event: 'tool_call', data: { call_id: c.id, name: c.name, arguments: c.arguments } };
      const r = await runTool(c.name, c.arguments, allowed, { workspace: input.workspace, written: input.written }, c.argumentsError);
      toolCalls.push({ name: c.name, arguments: c.arguments, ok: r.ok });
      yield { event: 'tool_result', data: { call_id: c.id, name: c.name, ok: r.ok, output: r.output, ...(r.error ? { error: r.error } : {}) } };
      if (r.files?.length) {
        files.push(...r.files);
        yield { event: 'files_changed', data: { files: r.files } };
      }
      messages.push({ role: 'tool', tool_call_id: c.id, name: c.name, content: r.ok ? r.output : `Error: ${r.error}` });
    }
  }
  /* c8 ignore next */
  return { reply: '', usage, toolCalls, files, error: null };
}
