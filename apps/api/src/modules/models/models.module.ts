/** Models: bound language-model endpoints (provider, model id, base URL, sealed API key). */
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Model } from './model.entity';

@Module({ imports: [TypeOrmModule.forFeature([Model])], exports: [TypeOrmModule] })
export class ModelsModule {}
