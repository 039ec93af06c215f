/** Chat: the HTTP face of the runtime — sync chat, SSE stream with resume, demo, history, runs. */
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Message } from './message.entity';
import { RunEvent } from './run-event.entity';
import { Run } from './run.entity';

@Module({ imports: [TypeOrmModule.forFeature([Run, RunEvent, Message])], exports: [TypeOrmModule] })
export class ChatModule {}
