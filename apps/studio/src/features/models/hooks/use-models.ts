import type { Model, ModelInput } from '../../../shared/api-types';
import { useDeleteResource, useResourceList, useSaveResource } from '../../../shared/resource-hooks';
import { modelKeys, modelsApi } from '../api/models-api';

export const useModels = () => useResourceList<Model>(modelKeys, modelsApi);
export const useSaveModel = () => useSaveResource<Model, ModelInput>(modelKeys, modelsApi);
export const useDeleteModel = () => useDeleteResource(modelKeys, modelsApi);
