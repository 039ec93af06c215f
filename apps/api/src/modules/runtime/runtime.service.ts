/** The runtime's Nest face: runs turns and chooses providers. Still no HTTP and no database here. */
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { createProvider, type ModelProviderKind } from './providers/create-provider';
import { OfflineProvider } from './providers/offline.provider';
import { ProviderError, type Provider } from './providers/provider';
import type { ResolvedModel, RuntimeEvent, TurnRequest, TurnResult } from './runtime.types';
import { runTurn } from './turn-runner';

const KINDS: readonly string[] = ['vendor_a', 'vendor_b', 'custom'];
const PROVIDER_CACHE_SIZE = 100;

/** A provider that fails on use: a refused or unconfigured model becomes a clean `error` event. */
class FailingProvider implements Provider {
  constructor(readonly name: string, private readonly error: ProviderError) {}
  // eslint-disable-next-line require-yield
  async *stream(): AsyncIterable<never> {
    throw this.error;
  }
}

@Injectable()
export class RuntimeService {
  private readonly offline = new OfflineProvider();
  private readonly providers = new Map<string, Provider>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  run(req: TurnRequest): AsyncGenerator<RuntimeEvent, TurnResult> {
    return runTurn(req);
  }

  /** The server's default model from LLM_* settings, or null (offline). */
  private defaultModel(): ResolvedModel | null {
    const { provider, model, apiBase, apiKey } = this.config.llm;
    if (!provider || provider === 'offline' || !KINDS.includes(provider)) return null;
    return { provider: provider as ModelProviderKind, model_id: model ?? '', api_base: apiBase, api_key: apiKey, temperature: null, max_tokens: null };
  }

  providerFor(model: ResolvedModel | null): { provider: Provider; name: string; model: string } {
    const m = model ?? this.defaultModel();
    if (!m || m.provider === 'offline') return { provider: this.offline, name: 'offline', model: 'offline' };
    // Providers (and their SDK clients with pooled connections) are kept per model configuration.
    const key = createHash('sha256').update(JSON.stringify([m.provider, m.model_id, m.api_base, m.api_key])).digest('base64url');
    const cached = this.providers.get(key);
    if (cached) return { provider: cached, name: m.provider, model: m.model_id };
    try {
      const provider = createProvider(
        { provider: m.provider, model_id: m.model_id, api_base: m.api_base, api_key: m.api_key },
        { VENDOR_A_API_KEY: this.config.vendorAKey, VENDOR_B_API_KEY: this.config.vendorBKey, MODEL_HOSTS: this.config.modelHosts },
      );
      this.providers.set(key, provider);
      if (this.providers.size > PROVIDER_CACHE_SIZE) this.providers.delete(this.providers.keys().next().value as string);
      return { provider, name: m.provider, model: m.model_id };
    } catch (e) {
      const err = e instanceof ProviderError ? e : new ProviderError('provider_refused', 'The model could not be configured.');
      return { provider: new FailingProvider(m.provider, err), name: m.provider, model: m.model_id };
    }
  }

  describeDefault() {
    const m = this.defaultModel();
    return {
      provider: m?.provider ?? 'offline',
      model: m ? m.model_id : 'offline',
      configured: {
        vendor_a: !!this.config.vendorAKey || this.config.llm.provider === 'vendor_a',
        vendor_b: !!this.config.vendorBKey || this.config.llm.provider === 'vendor_b',
        custom: this.config.llm.provider === 'custom' && !!this.config.llm.apiBase,
      },
    };
  }
}
