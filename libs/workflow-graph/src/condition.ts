// The branch condition language (docs/API.md): a tokenizer, a hand-written recursive-descent parser to a
// small AST, and an evaluator over {reply, stage, files}. Nothing here ever reaches eval/Function: the
// only names a condition can use are the three identifiers and the functions in FUNCTIONS.
//
// This module is the language's public face; its parts live in condition-*.ts.

export {
  CONDITION_FUNCTIONS,
  CONDITION_IDENTIFIERS,
  ConditionSyntaxError,
  MAX_CONDITION_DEPTH,
  MAX_CONDITION_LENGTH,
  MAX_MATCH_SUBJECT_LENGTH,
  MAX_PATTERN_LENGTH,
  type ComparisonOperator,
  type ConditionAst,
  type ConditionContext,
  type ConditionFunction,
  type ConditionIdentifier,
  type ConditionValue,
  type LogicalOperator,
} from './condition-ast';
export { checkCondition, parseCondition } from './condition-parser';
export { evaluateCondition, evaluateConditionValue, isTruthy } from './condition-evaluator';
export { CONDITION_LANGUAGE_DOC } from './condition-doc';
