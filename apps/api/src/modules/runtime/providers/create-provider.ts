/**
 * Builds the Provider for a model record, applying the two rules that protect the server:
 *
 * 1. Server keys (VENDOR_A_API_KEY / VENDOR_B_API_KEY) are used only when the record has no key of its
 *    own AND it talks to the vendor's official endpoint (no api_base, or exactly the official one).
 *    A server key is never sent to a user-supplied api_base.
 * 2. MODEL_HOSTS: the api_base is checked when the provider is built, and every request goes through
 *    `policyFetch`, which checks the resolved addresses and never follows a redirect.
 */
import { assertUrlAllowed, HostMode, HostPolicyError, LookupAll, policyFetch } from '../../../platform/net/host-policy';
import { ANTHROPIC_BASE_URL, AnthropicProvider } from './anthropic.provider';
import { OPENAI_BASE_URL, OpenAiProvider } from './openai.provider';
import { Provider, ProviderError, ProviderEvent, ProviderRequest } from './provider';

export type ModelProviderKind = 'vendor_a' | 'vendor_b' | 'custom';

export interface ModelProviderSpec {
  provider: ModelProviderKind;
  model_id: string;
  api_base?: string | null;
  /** the record's own key, decrypted */
  api_key?: string | null;
}

export interface ProviderEnv {
  VENDOR_A_API_KEY?: string | null;
  VENDOR_B_API_KEY?: string | null;
  /** 'any' (default) | 'public'; anything else is treated as 'public' */
  MODEL_HOSTS?: string | null;
}

export interface CreateProviderOptions {
  timeoutMs?: number;
  idleTimeoutMs?: number;
  maxRetries?: number;
  /** transport under the host policy (tests) */
  fetch?: typeof fetch;
  /** DNS resolver used by the host policy (tests) */
  lookup?: LookupAll;
}

const OFFICIAL = {
  vendor_a: { origin: 'https://api.openai.com', paths: ['', '/v1'] },
  vendor_b: { origin: 'https://api.anthropic.com', paths: ['', '/v1'] },
} as const;

export function hostMode(value: string | null | undefined): HostMode {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === 'any') return 'any';
  return 'public'; // fail closed on a typo
}

/** True when `base` is the vendor's official API endpoint (https, default port, no credentials/query). */
export function isOfficialBase(kind: 'vendor_a' | 'vendor_b', base: string): boolean {
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    return false;
  }
  const official = OFFICIAL[kind];
  const path = u.pathname.replace(/\/+$/, '');
  return (
    u.origin === official.origin &&
    !u.username &&
    !u.password &&
    !u.search &&
    !u.hash &&
    (official.paths as readonly string[]).includes(path)
  );
}

export function createProvider(spec: ModelProviderSpec, env: ProviderEnv, opts: CreateProviderOptions = {}): Provider {
  const mode = hostMode(env.MODEL_HOSTS);
  const base = spec.api_base?.trim() || null;
  if (base) {
    try {
      assertUrlAllowed(base, mode);
    } catch (err) {
      if (err instanceof HostPolicyError) throw new ProviderError('provider_refused', err.message, { cause: err });
      throw err;
    }
  }
  const ownKey = spec.api_key?.trim() || null;
  const common = {
    timeoutMs: opts.timeoutMs,
    idleTimeoutMs: opts.idleTimeoutMs,
    maxRetries: opts.maxRetries,
    fetch: policyFetch(mode, { fetch: opts.fetch, lookup: opts.lookup }),
  };

  let provider: Provider;
  switch (spec.provider) {
    case 'vendor_a': {
      const official = !base || isOfficialBase('vendor_a', base);
      const apiKey = ownKey ?? (official ? env.VENDOR_A_API_KEY?.trim() || null : null);
      if (official && !apiKey) throw missingKey('vendor_a', 'VENDOR_A_API_KEY');
      provider = new OpenAiProvider({
        ...common,
        name: 'vendor_a',
        baseURL: official ? OPENAI_BASE_URL : base,
        apiKey,
        maxTokensField: official ? 'max_completion_tokens' : 'max_tokens',
      });
      break;
    }
    case 'vendor_b': {
      const official = !base || isOfficialBase('vendor_b', base);
      const apiKey = ownKey ?? (official ? env.VENDOR_B_API_KEY?.trim() || null : null);
      if (official && !apiKey) throw missingKey('vendor_b', 'VENDOR_B_API_KEY');
      provider = new AnthropicProvider({
        ...common,
        name: 'vendor_b',
        // the SDK appends /v1/messages itself; people often paste the base with /v1
        baseURL: official ? ANTHROPIC_BASE_URL : base.replace(/\/+$/, '').replace(/\/v1$/, ''),
        apiKey,
      });
      break;
    }
    case 'custom': {
      if (!base) {
        throw new ProviderError(
          'provider_refused',
          'A custom model needs an api_base (an OpenAI-compatible server URL).',
        );
      }
      provider = new OpenAiProvider({
        ...common,
        name: 'custom',
        baseURL: base,
        apiKey: ownKey,
        maxTokensField: 'max_tokens',
      });
      break;
    }
    default:
      throw new ProviderError(
        'provider_refused',
        `Unknown model provider "${String((spec as { provider: unknown }).provider)}".`,
      );
  }

  const inner = provider;
  return {
    name: inner.name,
    stream(req: ProviderRequest): AsyncIterable<ProviderEvent> {
      return inner.stream({ ...req, model: req.model || spec.model_id });
    },
  };
}

function missingKey(kind: string, envName: string): ProviderError {
  return new ProviderError(
    'provider_refused',
    `No API key for this ${kind} model: set one on the model, or ${envName} on the server.`,
  );
}
