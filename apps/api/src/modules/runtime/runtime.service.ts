/**
 * The runtime's Nest face: runs turns (turn-runner) and picks the provider for a model record, with the
 * server's default model from LLM_PROVIDER / LLM_MODEL / LLM_API_BASE / LLM_API_KEY (`offline` when
 * nothing is configured). No HTTP and no database here: the chat module supplies the ports.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { errorInfo } from '../../platform/logging/error-info';
import { createProvider, type ModelProviderKind } from './providers/create-provider';
import { OFFLINE_MODEL, OfflineProvider } from './providers/offline.provider';
import { ProviderError, type Provider, type ProviderEvent } from './providers/provider';
import type { ResolvedModel, RuntimeEvent, TurnRequest, TurnResult } from './runtime.types';
import { runTurn } from './turn-runner';

const KINDS: readonly string[] = ['vendor_a', 'vendor_b', 'custom'];
const PROVIDER_CACHE_SIZE = 100;

/** A provider that fails when used: a model that cannot be built becomes a clean `error` event of the turn. */
class FailingProvider implements Provider {
  constructor(
    readonly name: string,
    private readonly error: ProviderError,
  ) {}
  // eslint-disable-next-line require-yield
  async *stream(): AsyncGenerator<ProviderEvent> {
    throw this.error;
  }
}

type DefaultModel =
  | { kind: 'offline' }
  | { kind: 'model'; model: ResolvedModel }
  | { kind: 'invalid'; provider: string; model: string; error: ProviderError };

@Injectable()
export class RuntimeService {
  private readonly offline = new OfflineProvider();
  /** Providers (and their SDK clients with pooled connections) kept per model configuration. */
  private readonly providers = new Map<string, Provider>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Runs one turn: yields every RuntimeEvent except `close` and returns the TurnResult. Never throws for turn failures. */
  run(req: TurnRequest): AsyncGenerator<RuntimeEvent, TurnResult> {
    const d = this.describeDefault();
    const { llm, vendorAKey, vendorBKey } = this.config;
    return runTurn(req, {
      server: { provider: d.provider, model: d.model },
      secrets: [llm.apiKey, vendorAKey, vendorBKey].filter((s): s is string => !!s),
    });
  }

  /** The provider for a model record (null = the server's default model). */
  providerFor(model: ResolvedModel | null): { provider: Provider; name: string; model: string } {
    let m: ResolvedModel;
    if (model) {
      m = model;
    } else {
      const d = this.defaultModel();
      if (d.kind === 'offline') return this.offlineChoice();
      if (d.kind === 'invalid')
        return { provider: new FailingProvider(d.provider, d.error), name: d.provider, model: d.model };
      m = d.model;
    }
    if (m.provider === 'offline') return this.offlineChoice();
    if (!m.model_id.trim()) {
      const error = new ProviderError(
        'provider_refused',
        model
          ? 'This model has no model_id.'
          : 'LLM_PROVIDER is set but LLM_MODEL is not: set the model name for the server default.',
      );
      return { provider: new FailingProvider(m.provider, error), name: m.provider, model: '' };
    }
    const key = createHash('sha256')
      .update(JSON.stringify([m.provider, m.model_id, m.api_base, m.api_key]))
      .digest('base64url');
    const cached = this.providers.get(key);
    if (cached) return { provider: cached, name: m.provider, model: m.model_id };
    try {
      const provider = createProvider(
        { provider: m.provider, model_id: m.model_id, api_base: m.api_base, api_key: m.api_key },
        {
          VENDOR_A_API_KEY: this.config.vendorAKey,
          VENDOR_B_API_KEY: this.config.vendorBKey,
          MODEL_HOSTS: this.config.modelHosts,
        },
      );
      this.providers.set(key, provider);
      if (this.providers.size > PROVIDER_CACHE_SIZE)
        this.providers.delete(this.providers.keys().next().value as string);
      return { provider, name: m.provider, model: m.model_id };
    } catch (e) {
      if (!(e instanceof ProviderError)) {
        // not a refusal (those are ProviderErrors the user reads): a bug in setting up the SDK client,
        // logged with its stack and cause; the turn reports only that the model could not be set up
        new Logger('RuntimeService').error(
          { err: errorInfo(e), provider: m.provider },
          'model provider setup failed unexpectedly',
        );
      }
      const error =
        e instanceof ProviderError
          ? e
          : new ProviderError('provider_refused', `The ${m.provider} model could not be set up.`, { cause: e });
      return { provider: new FailingProvider(m.provider, error), name: m.provider, model: m.model_id };
    }
  }

  /** For GET /agent/status — never a key. */
  describeDefault(): {
    provider: string;
    model: string;
    configured: { vendor_a: boolean; vendor_b: boolean; custom: boolean };
  } {
    const d = this.defaultModel();
    const def = d.kind === 'model' ? d.model : null;
    return {
      provider: d.kind === 'offline' ? 'offline' : d.kind === 'invalid' ? d.provider : d.model.provider,
      model: d.kind === 'offline' ? OFFLINE_MODEL : d.kind === 'invalid' ? d.model : d.model.model_id,
      configured: {
        vendor_a: !!this.config.vendorAKey || def?.provider === 'vendor_a',
        vendor_b: !!this.config.vendorBKey || def?.provider === 'vendor_b',
        custom: def?.provider === 'custom' && !!def.api_base,
      },
    };
  }

  private offlineChoice() {
    return { provider: this.offline as Provider, name: 'offline', model: OFFLINE_MODEL };
  }

  /**
   * The server default: LLM_PROVIDER (vendor_a | vendor_b | custom | offline); unset → `custom` when
   * LLM_API_BASE is set (a local OpenAI-compatible server), else `offline`.
   */
  private defaultModel(): DefaultModel {
    const { provider: raw, model, apiBase, apiKey } = this.config.llm;
    const provider = raw?.trim().toLowerCase() || (apiBase ? 'custom' : 'offline');
    if (provider === 'offline') return { kind: 'offline' };
    if (!KINDS.includes(provider)) {
      return {
        kind: 'invalid',
        provider,
        model: model ?? '',
        error: new ProviderError(
          'provider_refused',
          `LLM_PROVIDER "${provider}" is not one of vendor_a, vendor_b, custom or offline.`,
        ),
      };
    }
    return {
      kind: 'model',
      model: {
        provider: provider as ModelProviderKind,
        model_id: model ?? '',
        api_base: apiBase,
        api_key: apiKey,
        temperature: null,
        max_tokens: null,
      },
    };
  }
}
