import type { Agent, AgentInput } from '../../../shared/api-types';
import { resourceApi, resourceKeys } from '../../../shared/resource-api';

export const agentKeys = resourceKeys('agents');
export const agentsApi = resourceApi<Agent, AgentInput>('/studio/api/agents');
