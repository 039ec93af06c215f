/** Runtime: runs a turn through a pack (graph walk, ReAct loop, tools, providers). No HTTP in here. */
import { Module } from '@nestjs/common';

@Module({})
export class RuntimeModule {}
