import type { Skill, SkillInput } from '../../../shared/api-types';
import { useDeleteResource, useResourceList, useSaveResource } from '../../../shared/resource-hooks';
import { skillKeys, skillsApi } from '../api/skills-api';

export const useSkills = () => useResourceList<Skill>(skillKeys, skillsApi);
export const useSaveSkill = () => useSaveResource<Skill, SkillInput>(skillKeys, skillsApi);
export const useDeleteSkill = () => useDeleteResource(skillKeys, skillsApi);
