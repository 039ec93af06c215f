import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A worker process of the cluster and its last heartbeat (docs/decisions/cluster.md, "Leases"). */
@Entity('cluster_workers')
export class ClusterWorker {
  @PrimaryColumn({ type: 'varchar', length: 64 }) id: string;
  /** the ids graphile-worker locks this process's jobs with (its worker pools) */
  @Column({ type: 'text', array: true, default: () => "'{}'" }) queue_ids: string[];
  @Column({ type: 'timestamptz', default: () => 'now()' }) started_at: Date;
  @Column({ type: 'timestamptz', default: () => 'now()' }) beat_at: Date;
}
