/**
 * Models: bound language-model endpoints. CRUD scoped by OwnedRecords, the MODEL_HOSTS policy applied
 * to `api_base` at save time, API keys sealed at rest (AES-GCM, key derived from APP_SECRET) and never
 * returned: records carry `has_api_key` instead. The runtime reads the decrypted key through
 * `resolveForRuntime`, which never leaves the server process.
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { SecretBox } from '../../platform/crypto/secret-box';
import { DomainError, invalid } from '../../platform/errors/domain-error';
import { AGENTS, referenced } from '../../platform/errors/referenced';
import { assertUrlAllowed, HostPolicyError } from '../../platform/net/host-policy';
import { OwnedRecords } from '../../platform/ownership/owned-records';
import type { AuthUser } from '../auth/user.entity';
import type { ResolvedModel } from '../runtime/runtime.types';
import type { CreateModelDto, ModelView, UpdateModelDto } from './dto/model.dto';
import { Model } from './model.entity';
import { isDbId } from '../../platform/database/db-id';

/** How many referrers a 409 detail names. */
const MAX_NAMED_REFERRERS = 20;

type ModelRow = Model & { api_key_sealed: string | null };

/** The public shape of a model: everything but the sealed key, plus whether one is stored. */
export function toModelView(row: ModelRow): ModelView {
  const { api_key_sealed, ...rest } = row;
  return { ...rest, has_api_key: !!api_key_sealed } as unknown as ModelView;
}

@Injectable()
export class ModelsService {
  readonly records: OwnedRecords<Model>;
  private readonly box: SecretBox;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.records = new OwnedRecords(ds.getRepository(Model), 'model');
    this.box = new SecretBox(config.appSecret, 'model-api-key');
  }

  /** Visible rows with the sealed key column, which is not selected by default. */
  private withKey(user: AuthUser | null, m?: EntityManager) {
    return this.records.visible(user, 'r', m).addSelect('r.api_key_sealed');
  }

  async list(user: AuthUser): Promise<ModelView[]> {
    const rows = (await this.withKey(user)
      .orderBy('r.created_at', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .getMany()) as ModelRow[];
    return rows.map(toModelView);
  }

  async get(user: AuthUser, id: number, m?: EntityManager): Promise<ModelView> {
    await this.records.findVisible(user, id, m); // 404 for another user's record and for ids no row can have
    return toModelView(await this.withKey(user, m).andWhere('r.id = :id', { id }).getOneOrFail());
  }

  async create(user: AuthUser, dto: CreateModelDto): Promise<ModelView> {
    const apiBase = blankToNull(dto.api_base);
    this.checkApiBase(dto.provider, apiBase);
    const repo = this.records.repository();
    const saved = await repo.save(
      repo.create({
        owner_id: user.id,
        is_system: false,
        label: dto.label,
        provider: dto.provider,
        model_id: dto.model_id,
        api_base: apiBase,
        temperature: dto.temperature ?? null,
        max_tokens: dto.max_tokens ?? null,
        api_key_sealed: this.seal(dto.api_key),
      } as Partial<ModelRow>),
    );
    return this.get(user, saved.id);
  }

  async update(user: AuthUser, id: number, dto: UpdateModelDto): Promise<ModelView> {
    return this.ds.transaction(async (m) => {
      const current = await this.lockWritable(user, id, m);
      const apiBase = dto.api_base === undefined ? current.api_base : blankToNull(dto.api_base);
      // The policy is checked on the record as it will be saved (a provider change needs a base too).
      this.checkApiBase(dto.provider ?? current.provider, apiBase);
      const patch: Partial<ModelRow> = {};
      if (dto.label !== undefined) patch.label = dto.label;
      if (dto.provider !== undefined) patch.provider = dto.provider;
      if (dto.model_id !== undefined) patch.model_id = dto.model_id;
      if (dto.api_base !== undefined) patch.api_base = apiBase;
      if (dto.temperature !== undefined) patch.temperature = dto.temperature;
      if (dto.max_tokens !== undefined) patch.max_tokens = dto.max_tokens;
      if (dto.api_key !== undefined) patch.api_key_sealed = this.seal(dto.api_key); // null or "" clears it
      if (Object.keys(patch).length) await this.records.repository(m).update({ id }, patch);
      return this.get(user, id, m);
    });
  }

  /** 409 naming the agents that use the model; the check and the delete are one transaction. */
  async remove(user: AuthUser, id: number): Promise<void> {
    await this.ds.transaction(async (m) => {
      const model = await this.lockWritable(user, id, m);
      const users: Array<{ id: number; name: string; total: string | number }> = await m.query(
        `SELECT id, name, count(*) OVER () AS total FROM agents WHERE model_id = $1 ORDER BY id LIMIT ${MAX_NAMED_REFERRERS}`,
        [id],
      );
      if (users.length)
        throw referenced(
          `The model "${model.label}"`,
          AGENTS,
          users.map((a) => a.name),
          Number(users[0].total),
          'choose another model for them, or delete them, first',
        );
      await this.records.repository(m).delete({ id });
    });
  }

  /**
   * For the runtime: a model the user may use (system or own; anonymous = system only) with its
   * decrypted key. Not visible → 404 DomainError.
   */
  async resolveForRuntime(user: AuthUser | null, id: number): Promise<ResolvedModel> {
    if (!isDbId(id)) throw new DomainError('not_found', `Model ${String(id)} not found`);
    const row = await this.withKey(user).andWhere('r.id = :id', { id }).getOne();
    if (!row) throw new DomainError('not_found', `Model ${id} not found`);
    return this.toResolved(row);
  }

  /** A model row (with its sealed key) as the runtime uses it: the key decrypted, nothing else. */
  toResolved(
    row: Pick<ModelRow, 'provider' | 'model_id' | 'api_base' | 'api_key_sealed' | 'temperature' | 'max_tokens'>,
  ): ResolvedModel {
    return {
      provider: row.provider,
      model_id: row.model_id,
      api_base: row.api_base,
      api_key: row.api_key_sealed ? this.box.open(row.api_key_sealed) : null,
      temperature: row.temperature,
      max_tokens: row.max_tokens,
    };
  }

  /** `custom` needs a base URL; any base URL must pass the MODEL_HOSTS policy (400 on `api_base`). */
  private checkApiBase(provider: string, apiBase: string | null) {
    if (provider === 'custom' && !apiBase)
      throw invalid([{ field: 'api_base', message: 'api_base is required for custom models' }]);
    if (!apiBase) return;
    try {
      assertUrlAllowed(apiBase, this.config.modelHosts);
    } catch (e) {
      if (e instanceof HostPolicyError) throw invalid([{ field: 'api_base', message: e.message }]);
      throw e;
    }
  }

  private seal(key: string | null | undefined): string | null {
    return key ? this.box.seal(key) : null;
  }

  /** findWritable (404 / 403 "clone it"), then the row locked until the transaction ends. */
  private async lockWritable(user: AuthUser, id: number, m: EntityManager): Promise<Model> {
    await this.records.findWritable(user, id, m);
    const row = await this.records
      .visible(user, 'r', m)
      .andWhere('r.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
    if (!row) throw new DomainError('not_found', `Model ${id} not found`);
    return row;
  }
}

const blankToNull = (s: string | null | undefined) => (s == null || s.trim() === '' ? null : s.trim());
