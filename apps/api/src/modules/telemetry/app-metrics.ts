/**
 * The service's Prometheus metrics (docs/OPERATIONS.md, "Observability"), in one registry per app (so
 * tests booting several apps in one process never share counters). Updating them costs a few map
 * look-ups per turn and per model call; everything that is a level (open streams, the database pool)
 * is read only when /metrics is scraped.
 */
import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const METRIC_PREFIX = 'agentic_';

/** Distinct provider/model pairs with their own token series; the rest count as model "other". */
export const MAX_MODEL_SERIES = 50;

export type TokenType = 'input' | 'output';

/** A level read at scrape time: one number, or one per label set. */
export type GaugeReading = number | Array<{ labels: Record<string, string>; value: number }>;

@Injectable()
export class AppMetrics {
  readonly registry = new Registry();
  private readonly turnSeconds = new Histogram({
    name: `${METRIC_PREFIX}turn_duration_seconds`,
    help: 'Wall time of a turn, from its start to its done event, by outcome (done, error, cancelled, interrupted).',
    labelNames: ['outcome'],
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [this.registry],
  });
  private readonly ttftSeconds = new Histogram({
    name: `${METRIC_PREFIX}turn_time_to_first_token_seconds`,
    help: "Time from a turn's start to its first content event (the first token the user sees).",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly turns = new Counter({
    name: `${METRIC_PREFIX}turns_total`,
    help: 'Turns ended, by outcome (done, error, cancelled, interrupted).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly running = new Gauge({
    name: `${METRIC_PREFIX}turns_in_progress`,
    help: 'Turns running in this process.',
    registers: [this.registry],
  });
  private readonly tokens = new Counter({
    name: `${METRIC_PREFIX}model_tokens_total`,
    help: `Tokens the model providers reported, by provider, model and type (input, output); past ${MAX_MODEL_SERIES} models, model="other".`,
    labelNames: ['provider', 'model', 'type'],
    registers: [this.registry],
  });
  private readonly modelCalls = new Counter({
    name: `${METRIC_PREFIX}model_calls_total`,
    help: 'Model calls, by provider, model and result (ok, error).',
    labelNames: ['provider', 'model', 'result'],
    registers: [this.registry],
  });
  private readonly models = new Set<string>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** A turn started; the returned function ends it (once) with its outcome. */
  turnStarted(): { firstToken(): void; end(outcome: string): void } {
    const t0 = performance.now();
    let first = false;
    let ended = false;
    this.running.inc();
    return {
      firstToken: () => {
        if (first) return;
        first = true;
        this.ttftSeconds.observe((performance.now() - t0) / 1000);
      },
      end: (outcome) => {
        if (ended) return;
        ended = true;
        this.running.dec();
        this.turns.inc({ outcome });
        this.turnSeconds.observe({ outcome }, (performance.now() - t0) / 1000);
      },
    };
  }

  /** One model call's reported usage (provider = offline, vendor_a, vendor_b or custom). */
  modelCall(provider: string, model: string, usage: Record<TokenType, number>, ok: boolean) {
    const m = this.modelLabel(provider, model);
    if (usage.input > 0) this.tokens.inc({ provider, model: m, type: 'input' }, usage.input);
    if (usage.output > 0) this.tokens.inc({ provider, model: m, type: 'output' }, usage.output);
    this.modelCalls.inc({ provider, model: m, result: ok ? 'ok' : 'error' });
  }

  /** Model names come from user records: the series they make are capped (MAX_MODEL_SERIES). */
  modelLabel(provider: string, model: string): string {
    const key = `${provider}\u0000${model}`;
    if (this.models.has(key)) return model;
    if (this.models.size >= MAX_MODEL_SERIES) return 'other';
    this.models.add(key);
    return model;
  }

  /**
   * The hook for levels owned elsewhere, read when /metrics is scraped: open streams (chat), the
   * database pool (TelemetryModule) and, in cluster mode, queue depth and workers
   * (docs/decisions/observability.md). `name` gets the service prefix.
   */
  addGauge(name: string, help: string, read: () => GaugeReading, labelNames: string[] = []) {
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        const r = read();
        if (typeof r === 'number') this.set(r);
        else {
          this.reset();
          for (const { labels, value } of r) this.set(labels, value);
        }
      },
    });
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
