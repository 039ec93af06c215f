import { PartialType } from '@nestjs/swagger';
import { CreateWorkflowDto } from './create-workflow.dto';

/** PUT /studio/api/workflows/{id}: any subset of the create fields; only the fields sent change. */
export class UpdateWorkflowDto extends PartialType(CreateWorkflowDto, { skipNullProperties: false }) {}
