/** Chat: the HTTP face of the runtime — sync chat, SSE stream with resume, demo, history, runs. */
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentsModule } from '../agents/agents.module';
import { McpServersModule } from '../mcp-servers/mcp-servers.module';
import { ProjectsModule } from '../projects/projects.module';
import { RuntimeModule } from '../runtime/runtime.module';
import { WorkflowsModule } from '../workflows/workflows.module';
import { ChatController } from './chat.controller';
import { ChatService } from './chat.service';
import { ClusterTurns } from './cluster-turns';
import { Heartbeats } from './heartbeats';
import { Message } from './message.entity';
import { HistoryService } from './history.service';
import { RunCheckpoint } from './run-checkpoint.entity';
import { RunEvent } from './run-event.entity';
import { RunApprovals } from './run-approvals.service';
import { RunRerun } from './run-rerun.service';
import { RunRecovery } from './run-recovery.service';
import { RunAdmission } from './run-admission';
import { RunsService } from './runs.service';
import { RunFanout } from './run-fanout';
import { RunHub } from './run-hub';
import { Run } from './run.entity';
import { StreamSlots } from './stream-slots';
import { TurnWorker } from './turn-worker';

@Module({
  imports: [
    TypeOrmModule.forFeature([Run, RunEvent, RunCheckpoint, Message]),
    RuntimeModule,
    ProjectsModule,
    WorkflowsModule,
    AgentsModule,
    McpServersModule,
  ],
  controllers: [ChatController],
  providers: [
    ChatService,
    RunHub,
    RunFanout,
    ClusterTurns,
    TurnWorker,
    StreamSlots,
    Heartbeats,
    RunAdmission,
    RunsService,
    HistoryService,
    RunRecovery,
    RunApprovals,
    RunRerun,
  ],
  exports: [ChatService],
})
export class ChatModule {}
