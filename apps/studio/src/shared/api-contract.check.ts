/**
 * Compile-time contract check: what the studio sends must fit the API's request schemas (the types
 * generated from /openapi.json into libs/contracts by `npm run openapi`, checked in CI). A renamed,
 * removed or retyped field fails `tsc -p apps/studio/tsconfig.json` (part of the studio build).
 */
import type { Schema } from '@service/contracts';
import type * as T from './api-types';

type Fits<From, To> = [From] extends [To] ? true : false;
type Check<X extends true> = X;

export type ContractChecks = [
  // the one response type the studio also builds itself (a failure without a response)
  Check<Fits<Schema<'Problem'>, T.Problem>>,
  // requests the studio sends (what it reads is typed from the contract itself: api-types.ts)
  Check<Fits<T.ModelInput, Schema<'UpdateModelDto'>>>,
  Check<Fits<T.SkillInput, Schema<'UpdateSkillDto'>>>,
  Check<Fits<T.AgentInput, Schema<'UpdateAgentDto'>>>,
  Check<Fits<T.McpServerInput, Schema<'UpdateMcpServerDto'>>>,
  Check<Fits<T.BindWorkflowInput, Schema<'BindWorkflowDto'>>>,
  Check<Fits<T.DemoRequest, Schema<'DemoDto'>>>,
];
