/** Every migration, in order. Hand-checked SQL for Postgres; the same list runs on the embedded server and on an external one. */
import { Auth1732300000000 } from './1732300000000-auth';
import { Studio1732300000001 } from './1732300000001-studio';
import { Projects1732300000002 } from './1732300000002-projects';
import { Runs1732300000003 } from './1732300000003-runs';
import { MessageState1732300000010 } from './1732300000010-message-state';
import { OneTurnPerProject1732300000020 } from './1732300000020-one-turn-per-project';
import { RunInspection1732300000030 } from './1732300000030-run-inspection';
import { DurableRuns1732300000040 } from './1732300000040-durable-runs';
import { ToolApproval1732300000045 } from './1732300000045-tool-approval';
import { RunRerunOf1732300000046 } from './1732300000046-run-rerun-of';
import { McpServers1732300000050 } from './1732300000050-mcp-servers';
import { HistoryStageChange1732300000070 } from './1732300000070-history-stage-change';
import { WorkflowVersions1732300000071 } from './1732300000071-workflow-versions';
import { Cluster1732300000072 } from './1732300000072-cluster';
import { SharedLimits1732300000073 } from './1732300000073-shared-limits';
import { TurnAdmission1732300000074 } from './1732300000074-turn-admission';

export const MIGRATIONS = [
  Auth1732300000000,
  Studio1732300000001,
  Projects1732300000002,
  Runs1732300000003,
  MessageState1732300000010,
  OneTurnPerProject1732300000020,
  RunInspection1732300000030,
  DurableRuns1732300000040,
  ToolApproval1732300000045,
  RunRerunOf1732300000046,
  McpServers1732300000050,
  HistoryStageChange1732300000070,
  WorkflowVersions1732300000071,
  Cluster1732300000072,
  SharedLimits1732300000073,
  TurnAdmission1732300000074,
];
