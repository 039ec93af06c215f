/**
 * Cluster mode's shared plumbing (docs/decisions/cluster.md): the LISTEN/NOTIFY bus, the turn queue
 * (graphile-worker) and the worker heartbeat table. Inert when ROLE=all, the single-process default.
 */
import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClusterBus } from './cluster-bus';
import { ClusterWorker } from './cluster-worker.entity';
import { TurnQueue } from './turn-queue';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ClusterWorker])],
  providers: [ClusterBus, TurnQueue],
  exports: [ClusterBus, TurnQueue],
})
export class ClusterModule {}
