/** Runtime: runs a turn through a pack (graph walk, ReAct loop, tools, providers). No HTTP in here. */
import { Module } from '@nestjs/common';
import { RuntimeService } from './runtime.service';

@Module({ providers: [RuntimeService], exports: [RuntimeService] })
export class RuntimeModule {}
