/** GET /metrics: the Prometheus text format, for an admin or a scraper holding METRICS_TOKEN. */
import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AdminOnly, MetricsScraper } from '../auth/auth.decorators';
import { AppMetrics } from './app-metrics';

@ApiTags('telemetry')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: AppMetrics) {}

  @Get()
  @AdminOnly()
  @MetricsScraper()
  @Header('Cache-Control', 'no-store')
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description:
      'Prometheus text exposition format 0.0.4 (docs/OPERATIONS.md, "Observability"). An admin\'s session or personal access token, or `Authorization: Bearer $METRICS_TOKEN`.',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  async scrape(@Res({ passthrough: true }) res: Response): Promise<string> {
    res.type(this.metrics.contentType);
    return this.metrics.render();
  }
}
