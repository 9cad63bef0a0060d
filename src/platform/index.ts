// The plumbing that knows no module: database, HTTP, errors, jobs, limits, logging, ids, crypto.
export { createAdmissionGate } from './admission.ts';
export type { AdmissionGate } from './admission.ts';
export {
  backupEmbedded,
  backupFormatOf,
  backupPostgres,
  BackupRefused,
  restoreEmbedded,
  restorePostgres,
} from './backup.ts';
export { bodyArrived } from './client-errors.ts';
export { systemClock } from './clock.ts';
export type { Clock } from './clock.ts';
export { matchesHash, open, safeEqual, seal, sha256Hex } from './crypto.ts';
export { csvLines, csvText } from './csv.ts';
export type { CsvValue } from './csv.ts';
export { xlsxChunks } from './xlsx.ts';
export type { XlsxValue } from './xlsx.ts';
export {
  currencyExponent,
  formatMajor,
  isCurrency,
  isTimeZone,
  methodsForCurrency,
  payableUnit,
} from './currency.ts';
export { decodeCursor, encodeCursor } from './cursor.ts';
export { DataDirBusy, isAlive, lockDataDir } from './data-dir-lock.ts';
export {
  databaseUnavailable,
  OutageWatch,
  retryConflicts,
  retryWhileUnreachable,
  transactionConflict,
  warnUnlessUnreachable,
} from './db-errors.ts';
export { asOneStatement, connectionGone, insertRows, openDatabase, violates } from './db.ts';
export type { Database, DatabaseObserver, Db, Executor, Tx } from './db.ts';
export { ERASED, isErased } from './erased.ts';
export { logRequestError, sendError, sendOAuthError, toApiError } from './error-replies.ts';
export {
  ApiError,
  BODY_LIMIT_BYTES,
  ERROR_STATUS,
  notFound,
  uniqueErrors,
  validationError,
} from './errors.ts';
export type { ErrorCode, FieldError } from './errors.ts';
export { attr, html, raw } from './html.ts';
export type { Html, Interpolation } from './html.ts';
export { createHost, envelope, send, sendSerialized, setNotFoundBeforeBody } from './http.ts';
export type { Host, HostName } from './http.ts';
export { rewriteStoredResponses } from './idempotency-erasure.ts';
export {
  IDEMPOTENCY_SWEEP_JOB,
  idempotencyJobHandlers,
  idempotencyKeyOf,
  runIdempotent,
  runIdempotentWrite,
  sendIdempotent,
} from './idempotency.ts';
export type { PlannedWrite } from './idempotency.ts';
export { newId, newSecret, randomString } from './ids.ts';
export { enqueueJob, JobRunner, jobsInsert, readJobQueue } from './jobs.ts';
export type {
  EnqueueOptions,
  JobHandler,
  JobHandlerEntry,
  JobQueueKind,
  OutsideJobHandler,
  WorkQueue,
} from './jobs.ts';
export { getSetting, loadServiceKeys, setSetting } from './keys.ts';
export type { ServiceKeys } from './keys.ts';
export { createLogger } from './logger.ts';
export {
  lockTimedOut,
  migrate,
  MigrationFailed,
  migrationNames,
  MigrationsPending,
  migrationStatus,
  readMigration,
  requireMigrationsApplied,
} from './migrate.ts';
export type { MigrationMode, MigrationProgress, MigrationStatus } from './migrate.ts';
export { conflict, invalid, notThere, refusalError } from './outcome.ts';
export type { Outcome, Refusal } from './outcome.ts';
export { OverloadMonitor } from './overload.ts';
export { createRateLimiter, enforceRateLimit, rateLimitHeaders } from './rate-limit.ts';
export type { RateLimiter, RedisLimiterObserver } from './rate-limit.ts';
export { Envelope, ErrorOut, errorResponses, Timestamp } from './schemas.ts';
export { onShed } from './shed-requests.ts';
export { chooseEncoding, makeAsset, sendAsset } from './static-assets.ts';
export type { Asset } from './static-assets.ts';
export {
  continueStoredTrace,
  currentTraceContext,
  startTracing,
  traceCallOut,
  tracingOn,
} from './tracing.ts';
export { LONE_SURROGATE } from './unstorable-text.ts';
export { fieldErrors } from './validation.ts';
export { runWorkers, workerIndex } from './workers.ts';
