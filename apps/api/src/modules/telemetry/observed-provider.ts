/**
 * A model provider seen by telemetry: each model call counts its tokens (AppMetrics) and, when traces
 * are exported, is a `chat {model}` client span with the GenAI semantic conventions' attributes
 * (docs/decisions/observability.md). Events pass through unchanged. Prompts and replies are never
 * recorded: they are the users' data.
 */
import { context, SpanKind, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import { ProviderError, type Provider, type ProviderEvent, type ProviderRequest } from '../runtime/providers/provider';
import type { AppMetrics } from './app-metrics';

/** gen_ai.provider.name for the service's provider kinds (custom speaks the OpenAI protocol to a host of the user's). */
const GEN_AI_PROVIDER: Record<string, string> = { vendor_a: 'openai', vendor_b: 'anthropic' };

export function genAiProvider(kind: string): string {
  return GEN_AI_PROVIDER[kind] ?? kind;
}

export class ObservedProvider implements Provider {
  constructor(
    private readonly inner: Provider,
    /** offline, vendor_a, vendor_b or custom */
    private readonly kind: string,
    private readonly metrics: AppMetrics,
    private readonly tracer: Tracer | null,
  ) {}

  get name() {
    return this.inner.name;
  }

  async *stream(req: ProviderRequest): AsyncGenerator<ProviderEvent> {
    const span = this.tracer ? this.startSpan(this.tracer, req) : null;
    const usage = { input: 0, output: 0 };
    const finish: string[] = [];
    let ok = false;
    try {
      for await (const ev of this.inner.stream(req)) {
        if (ev.type === 'usage') {
          usage.input += count(ev.input_tokens);
          usage.output += count(ev.output_tokens);
        } else if (ev.type === 'finish') finish.push(ev.reason);
        yield ev;
      }
      ok = true;
    } catch (e) {
      span?.setStatus({ code: SpanStatusCode.ERROR });
      span?.setAttribute('error.type', e instanceof ProviderError ? e.code : 'provider_error');
      throw e;
    } finally {
      this.metrics.modelCall(this.kind, req.model, usage, ok);
      if (span) {
        span.setAttributes({
          'gen_ai.usage.input_tokens': usage.input,
          'gen_ai.usage.output_tokens': usage.output,
          ...(finish.length ? { 'gen_ai.response.finish_reasons': finish } : {}),
        });
        span.end();
      }
    }
  }

  private startSpan(tracer: Tracer, req: ProviderRequest): Span {
    const provider = genAiProvider(this.kind);
    // the parent is the node span the turn observer made current (turn-telemetry.ts)
    return tracer.startSpan(
      `chat ${req.model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': provider,
          'gen_ai.system': provider,
          'gen_ai.request.model': req.model,
          'workflow.model.provider': this.kind,
          ...(req.temperature !== undefined ? { 'gen_ai.request.temperature': req.temperature } : {}),
          ...(req.maxTokens !== undefined ? { 'gen_ai.request.max_tokens': req.maxTokens } : {}),
        },
      },
      context.active(),
    );
  }
}

function count(n: number): number {
  return Number.isFinite(n) && n > 0 ? n : 0;
}
