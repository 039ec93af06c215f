/**
 * Runtime: runs a turn through a pack — graph walk, ReAct loop, tools, providers. No HTTP and no
 * database in here; the chat module supplies the ports (agents, state, workspace) and carries the events.
 * APP_CONFIG comes from the global config provider.
 */
import { Module } from '@nestjs/common';
import { RuntimeService } from './runtime.service';

@Module({ providers: [RuntimeService], exports: [RuntimeService] })
export class RuntimeModule {}
