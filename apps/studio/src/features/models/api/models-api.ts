import type { Model, ModelInput, ModelProvider } from '../../../shared/api-types';
import { resourceApi, resourceKeys } from '../../../shared/resource-api';

export const modelKeys = resourceKeys('models');
export const modelsApi = resourceApi<Model, ModelInput>('/studio/api/models');

export const PROVIDERS: { value: ModelProvider; label: string }[] = [
  { value: 'vendor_a', label: 'OpenAI API' },
  { value: 'vendor_b', label: 'Anthropic Messages API' },
  { value: 'custom', label: 'OpenAI-compatible' },
];

export function providerLabel(p: string): string {
  return PROVIDERS.find((x) => x.value === p)?.label ?? p;
}
