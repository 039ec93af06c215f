/** Models: CRUD with ownership, URL policy at save time, API keys sealed at rest and never returned. */
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { SecretBox } from '../../platform/crypto/secret-box';
import { DomainError, invalid } from '../../platform/errors/domain-error';
import { assertUrlAllowed, HostPolicyError } from '../../platform/net/host-policy';
import { OwnedRecords } from '../../platform/ownership/owned-records';
import type { AuthUser } from '../auth/user.entity';
import type { ResolvedModel } from '../runtime/runtime.types';
import type { CreateModelDto, UpdateModelDto } from './dto/model.dto';
import { Model } from './model.entity';

type ModelWithKey = Model & { api_key_sealed: string | null };

export function toModelView(m: ModelWithKey) {
  const { api_key_sealed, ...rest } = m;
  return { ...rest, has_api_key: !!api_key_sealed };
}

@Injectable()
export class ModelsService {
  readonly records: OwnedRecords<Model>;
  private readonly box: SecretBox;

  constructor(@InjectDataSource() private readonly ds: DataSource, @Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.records = new OwnedRecords(ds.getRepository(Model), 'model');
    this.box = new SecretBox(config.appSecret, 'model-api-key');
  }

  /** A query that also reads whether a key is stored (the column is not selected by default). */
  private withKey(user: AuthUser | null) {
    return this.records.visible(user, 'r').addSelect('r.api_key_sealed');
  }

  async list(user: AuthUser) {
    const rows = (await this.withKey(user).orderBy('r.created_at', 'DESC').addOrderBy('r.id', 'DESC').getMany()) as ModelWithKey[];
    return rows.map(toModelView);
  }

  async get(user: AuthUser, id: number) {
    await this.records.findVisible(user, id);
    const row = (await this.withKey(user).andWhere('r.id = :id', { id }).getOneOrFail()) as ModelWithKey;
    return toModelView(row);
  }

  private checkBase(provider: string, apiBase: string | null | undefined) {
    if (provider === 'custom' && !apiBase) throw invalid([{ field: 'api_base', message: 'api_base is required for custom models' }]);
    if (!apiBase) return;
    try {
      assertUrlAllowed(apiBase, this.config.modelHosts);
    } catch (e) {
      if (e instanceof HostPolicyError) throw invalid([{ field: 'api_base', message: e.message }]);
      throw e;
    }
  }

  private sealKey(key: string | null | undefined): string | null {
    return key ? this.box.seal(key) : null;
  }

  async create(user: AuthUser, dto: CreateModelDto) {
    this.checkBase(dto.provider, dto.api_base);
    const repo = this.records.repository();
    const saved = await repo.save(
      repo.create({
        owner_id: user.id,
        is_system: false,
        label: dto.label,
        provider: dto.provider,
        model_id: dto.model_id,
        api_base: dto.api_base || null,
        temperature: dto.temperature ?? null,
        max_tokens: dto.max_tokens ?? null,
        api_key_sealed: this.sealKey(dto.api_key),
      } as Partial<ModelWithKey>),
    );
    return this.get(user, saved.id);
  }

  async update(user: AuthUser, id: number, dto: UpdateModelDto) {
    const current = await this.records.findWritable(user, id);
    const provider = dto.provider ?? current.provider;
    const apiBase = dto.api_base === undefined ? current.api_base : dto.api_base || null;
    this.checkBase(provider, apiBase);
    const patch: Partial<ModelWithKey> = {};
    if (dto.label !== undefined) patch.label = dto.label;
    if (dto.provider !== undefined) patch.provider = dto.provider;
    if (dto.model_id !== undefined) patch.model_id = dto.model_id;
    if (dto.api_base !== undefined) patch.api_base = apiBase;
    if (dto.temperature !== undefined) patch.temperature = dto.temperature;
    if (dto.max_tokens !== undefined) patch.max_tokens = dto.max_tokens;
    if (dto.api_key !== undefined) patch.api_key_sealed = this.sealKey(dto.api_key);
    if (Object.keys(patch).length) await this.records.repository().update({ id }, patch);
    return this.get(user, id);
  }

  async remove(user: AuthUser, id: number) {
    await this.ds.transaction(async (m) => {
      const model = await this.records.findWritable(user, id, m);
      const users: Array<{ id: number; name: string }> = await m.query(
        'SELECT id, name FROM agents WHERE model_id = $1 ORDER BY id LIMIT 20 FOR UPDATE',
        [id],
      );
      if (users.length) {
        throw new DomainError('record.referenced', `Model ${model.id} is used by agents: ${users.map((a) => `${a.name} (${a.id})`).join(', ')}.`);
      }
      await m.getRepository(Model).delete({ id });
    });
  }

  /** For the runtime: the model with its decrypted key (never leaves the server process). */
  async resolveForRuntime(user: AuthUser | null, id: number): Promise<ResolvedModel | null> {
    const row = (await this.withKey(user).andWhere('r.id = :id', { id }).getOne()) as ModelWithKey | null;
    if (!row) return null;
    return {
      provider: row.provider,
      model_id: row.model_id,
      api_base: row.api_base,
      api_key: row.api_key_sealed ? this.box.open(row.api_key_sealed) : null,
      temperature: row.temperature,
      max_tokens: row.max_tokens,
    };
  }
}
