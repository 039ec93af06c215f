/**
 * The span tree of one turn, built from the turn's own events (docs/decisions/observability.md):
 *
 *   HTTP request (W3C traceparent) → turn → node {node_key} → chat {model} (observed-provider.ts)
 *                                                          → execute_tool {name}
 *
 * The runtime knows nothing of it. The observer drives the turn's generator inside the context of the
 * innermost open span (current()), so whatever runs on the way — a model call, a tool's database
 * statements — gets that span as its parent.
 */
import { context, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { RuntimeEvent, TurnRequest } from '../runtime/runtime.types';

interface Open {
  span: Span;
  ctx: Context;
}

export class TurnSpans {
  private readonly turn: Open;
  private node: Open | null = null;
  private tool: Open | null = null;

  constructor(
    private readonly tracer: Tracer,
    req: TurnRequest,
  ) {
    // started by the request that asked for the turn: its span (and so its traceparent) is the parent
    const parent = context.active();
    const span = tracer.startSpan(
      'turn',
      {
        attributes: {
          'workflow.run_id': req.run_id,
          'workflow.pack.id': req.pack.id,
          'workflow.pack.slug': req.pack.slug,
          'workflow.stage': req.stage,
          'workflow.advance': req.advance,
          ...(req.project_slug ? { 'workflow.project.slug': req.project_slug } : { 'workflow.demo': true }),
        },
      },
      parent,
    );
    this.turn = { span, ctx: trace.setSpan(parent, span) };
  }

  /** The context the turn's next step runs in. */
  current(): Context {
    return (this.tool ?? this.node ?? this.turn).ctx;
  }

  event(e: RuntimeEvent) {
    switch (e.event) {
      case 'node':
        if (e.data.state === 'started') {
          this.endNode();
          this.node = this.child(this.turn, `node ${e.data.node_key}`, {
            'workflow.node.key': e.data.node_key,
            'workflow.node.type': e.data.type,
            ...(e.data.stage_label ? { 'workflow.stage': e.data.stage_label } : {}),
          });
        } else this.endNode();
        break;
      case 'agent':
        this.node?.span.setAttributes({
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.id': String(e.data.agent_id),
          'gen_ai.agent.name': e.data.name,
          'gen_ai.request.model': e.data.model,
        });
        break;
      case 'tool_call':
        this.endTool();
        this.tool = this.child(this.node ?? this.turn, `execute_tool ${e.data.name}`, {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': e.data.name,
          'gen_ai.tool.call.id': e.data.call_id,
          'gen_ai.tool.type': 'function',
        });
        break;
      case 'tool_result':
        if (this.tool && !e.data.ok) {
          this.tool.span.setStatus({ code: SpanStatusCode.ERROR });
          this.tool.span.setAttribute('error.type', 'tool_error');
        }
        this.endTool();
        break;
      case 'stage':
        this.turn.span.addEvent('stage', { from: e.data.from, to: e.data.to });
        break;
      case 'awaiting_gate':
        this.turn.span.setAttribute('workflow.awaiting_gate', e.data.node_key);
        break;
      case 'error':
        this.turn.span.setStatus({ code: SpanStatusCode.ERROR });
        this.turn.span.setAttribute('error.type', e.data.code);
        break;
      case 'done':
        this.turn.span.setAttributes({
          'workflow.outcome': e.data.state,
          'gen_ai.usage.input_tokens': e.data.usage.input_tokens,
          'gen_ai.usage.output_tokens': e.data.usage.output_tokens,
        });
        break;
    }
  }

  /** A failure the runtime did not report as an event (a bug): the turn span says so. */
  fail() {
    this.turn.span.setStatus({ code: SpanStatusCode.ERROR });
    this.turn.span.setAttribute('error.type', 'internal');
  }

  end() {
    this.endTool();
    this.endNode();
    this.turn.span.end();
  }

  private child(parent: Open, name: string, attributes: Record<string, string | number | boolean>): Open {
    const span = this.tracer.startSpan(name, { attributes }, parent.ctx);
    return { span, ctx: trace.setSpan(parent.ctx, span) };
  }

  private endTool() {
    this.tool?.span.end();
    this.tool = null;
  }

  private endNode() {
    this.endTool();
    this.node?.span.end();
    this.node = null;
  }
}
