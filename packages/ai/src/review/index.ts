/** The review model alone (training scripts and the worker need nothing else of @ax/ai). */
export { codeContext, type CodeContext } from "./context";
export {
  featurize,
  evidenceBlock,
  featureIndex,
  family,
  cweNumber,
  tokens,
  stripComments,
  FEATURE_SCHEME,
  type ReviewInput,
  type SparseVector,
} from "./features";
export {
  ReviewModel,
  defaultReviewModel,
  calibrate,
  sigmoid,
  DEFAULT_MODEL_PATH,
  REVIEW_CLASSES,
  PRIOR_FEATURE,
  rulePrior,
  reasonsFor,
  type Contribution,
  type ReviewClass,
  type ReviewModelArtifact,
  type ReviewVerdict,
} from "./model";
export { trainLogistic, fitPlatt, linearScore, encodeWeights, prng, type Example, type LinearModel, type TrainOptions } from "./train";
export { rocAuc, expectedCalibrationError, probabilityCalibrationError, atThreshold, type Scored, type ThresholdFigures } from "./metrics";
export { voteToExample, type FeedbackExample, type ReviewVote } from "../feedback/examples";
export { reviewFinding, type CombinedVerdict, type ReviewInputWithLine, type ReviewServerOptions } from "./combine";
export { RelatedIndex, reviewCode, type RelatedOptions, type SourceReader } from "./related";
export { fsSourceReader } from "./fs-reader";
export {
  evidenceOf,
  evidenceFeatures,
  evidenceSign,
  fileRole,
  codeKind,
  languageOf,
  constantArguments,
  type Evidence,
  type FindingFacts,
  type FileRole,
  type CodeKind,
} from "./evidence";
export {
  adjustVerdict,
  buildOrgStats,
  emptyOrgStats,
  labelKeyOf,
  orgShift,
  pathPattern,
  codeShape,
  reviewFacts,
  orgLabelOf,
  DEFAULT_LEARNING,
  LEVELS,
  MAX_LABELS,
  ORG_SUFFIX,
  type LabelFacts,
  type LearningParams,
  type Level,
  type OrgLabel,
  type OrgStats,
  type VerdictLike,
  type StoredLabel,
} from "./org-learning";
