/**
 * Observes turns for metrics and traces without the runtime knowing (docs/decisions/observability.md):
 * the chat layer starts a turn through run(), which wraps the model ports (observed-provider.ts) and
 * watches the events as they pass — time to first token, outcome, duration, and the span tree when
 * traces are exported (turn-spans.ts). With tracing off no span is made and no context is switched.
 */
import { Inject, Injectable } from '@nestjs/common';
import { context, trace, type Tracer } from '@opentelemetry/api';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { tracingOn } from '../../platform/telemetry/tracing';
import type { RuntimeEvent, TurnPorts, TurnRequest, TurnResult } from '../runtime/runtime.types';
import { AppMetrics } from './app-metrics';
import { ObservedProvider } from './observed-provider';
import { TurnSpans } from './turn-spans';

export const TRACER_NAME = 'agentic-workflow-service';

type Start = (req: TurnRequest) => AsyncGenerator<RuntimeEvent, TurnResult>;

@Injectable()
export class TurnTelemetry {
  private readonly tracer: Tracer | null;

  constructor(
    private readonly metrics: AppMetrics,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.tracer = tracingOn() ? trace.getTracer(TRACER_NAME, config.version) : null;
  }

  /** Starts the turn with `start` (the runtime), observed; events and result pass through unchanged. */
  run(start: Start, req: TurnRequest): AsyncGenerator<RuntimeEvent, TurnResult> {
    const spans = this.tracer ? new TurnSpans(this.tracer, req) : null;
    return this.observe(start({ ...req, ports: this.observedPorts(req.ports) }), spans);
  }

  private observedPorts(ports: TurnPorts): TurnPorts {
    const observed: TurnPorts = Object.create(ports) as TurnPorts;
    observed.provider = (model) => {
      const chosen = ports.provider(model);
      return { ...chosen, provider: new ObservedProvider(chosen.provider, chosen.name, this.metrics, this.tracer) };
    };
    return observed;
  }

  private async *observe(
    inner: AsyncGenerator<RuntimeEvent, TurnResult>,
    spans: TurnSpans | null,
  ): AsyncGenerator<RuntimeEvent, TurnResult> {
    const probe = this.metrics.turnStarted();
    let outcome = 'error';
    let finished = false;
    const next = () => inner.next(); // one closure per turn, not one per event (a turn has a few dozen)
    try {
      for (;;) {
        const step = spans ? await context.with(spans.current(), next) : await inner.next();
        if (step.done) {
          finished = true;
          outcome = step.value.state;
          return step.value;
        }
        const e = step.value;
        if (e.event === 'content') probe.firstToken();
        else if (e.event === 'done') outcome = e.data.state;
        spans?.event(e);
        yield e;
      }
    } catch (err) {
      finished = true;
      spans?.fail();
      throw err;
    } finally {
      if (!finished) await inner.return(undefined as never);
      probe.end(outcome);
      spans?.end();
    }
  }
}
