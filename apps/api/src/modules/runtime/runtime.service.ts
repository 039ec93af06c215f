/** The runtime's Nest face: runs turns and chooses providers. Still no HTTP and no database here. */
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { createProvider, type ModelProviderKind } from './providers/create-provider';
import { OfflineProvider } from './providers/offline.provider';
import { ProviderError, type Provider } from './providers/provider';
import type { ResolvedModel, RuntimeEvent, TurnRequest, TurnResult } from './runtime.types';
import { runTurn } from './turn-runner';

const KINDS: readonly string[] = ['vendor_a', 'vendor_b', 'custom'];

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
    try {
      const provider = createProvider(
        { provider: m.provider, model_id: m.model_id, api_base: m.api_base, api_key: m.api_key },
        { VENDOR_A_API_KEY: this.config.vendorAKey, VENDOR_B_API_KEY: this.config.vendorBKey, MODEL_HOSTS: this.config.modelHosts },
      );
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
