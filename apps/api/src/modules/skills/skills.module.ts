/** Skills: prompt overlays with tool allowlists. */
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Skill } from './skill.entity';

@Module({ imports: [TypeOrmModule.forFeature([Skill])], exports: [TypeOrmModule] })
export class SkillsModule {}
