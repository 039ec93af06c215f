/**
 * Telemetry: Prometheus metrics (/metrics) and the turn observer that feeds them and, when traces are
 * exported, the turn's spans (docs/decisions/observability.md). Global, so the chat layer and whoever
 * owns a level to report (AppMetrics.addGauge) can inject it.
 */
import { Global, Injectable, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { stopTracing } from '../../platform/telemetry/tracing';
import { AppMetrics } from './app-metrics';
import { MetricsController } from './metrics.controller';
import { TurnTelemetry } from './turn-telemetry';

/** The database pool's use, read at scrape time; the buffered spans flushed when the app closes. */
@Injectable()
class TelemetryLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly metrics: AppMetrics,
    @InjectDataSource() private readonly ds: DataSource,
  ) {}

  onModuleInit() {
    const pool = () => (this.ds.driver as unknown as { master?: Pool }).master;
    this.metrics.addGauge(
      'db_pool_connections',
      'Connections of the database pool, by state (busy, idle).',
      () => {
        const p = pool();
        if (!p) return [];
        return [
          { labels: { state: 'busy' }, value: p.totalCount - p.idleCount },
          { labels: { state: 'idle' }, value: p.idleCount },
        ];
      },
      ['state'],
    );
    this.metrics.addGauge(
      'db_pool_waiting',
      'Queries waiting for a connection of the database pool.',
      () => pool()?.waitingCount ?? 0,
    );
    this.metrics.addGauge('db_pool_max', 'The database pool size.', () => pool()?.options.max ?? 0);
  }

  async onApplicationShutdown() {
    await stopTracing();
  }
}

@Global()
@Module({
  controllers: [MetricsController],
  providers: [AppMetrics, TurnTelemetry, TelemetryLifecycle],
  exports: [AppMetrics, TurnTelemetry],
})
export class TelemetryModule {}
