/**
 * Limits shared across a cluster's processes (docs/OPERATIONS.md, "Limits"): the rate limiters'
 * Postgres storage and the shared concurrency slots. Both are inert with ROLE=all.
 */
import { Global, Module } from '@nestjs/common';
import { PgThrottlerStorage } from './pg-throttler-storage';
import { SharedSlots } from './shared-slots';

@Global()
@Module({ providers: [PgThrottlerStorage, SharedSlots], exports: [PgThrottlerStorage, SharedSlots] })
export class LimitsModule {}
