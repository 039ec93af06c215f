/** Cluster mode's shared plumbing (docs/decisions/cluster.md): the LISTEN/NOTIFY bus; inert when ROLE=all. */
import { Global, Module } from '@nestjs/common';
import { ClusterBus } from './cluster-bus';

@Global()
@Module({ providers: [ClusterBus], exports: [ClusterBus] })
export class ClusterModule {}
