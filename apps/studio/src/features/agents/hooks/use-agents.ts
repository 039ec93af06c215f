import type { Agent, AgentInput } from '../../../shared/api-types';
import { useDeleteResource, useResourceList, useSaveResource } from '../../../shared/resource-hooks';
import { agentKeys, agentsApi } from '../api/agents-api';

export const useAgents = () => useResourceList<Agent>(agentKeys, agentsApi);
export const useSaveAgent = () => useSaveResource<Agent, AgentInput>(agentKeys, agentsApi);
export const useDeleteAgent = () => useDeleteResource(agentKeys, agentsApi);
