import type { Skill, SkillInput } from '../../../shared/api-types';
import { resourceApi, resourceKeys } from '../../../shared/resource-api';

export const skillKeys = resourceKeys('skills');
export const skillsApi = resourceApi<Skill, SkillInput>('/studio/api/skills');
