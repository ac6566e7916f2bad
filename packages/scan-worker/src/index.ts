export { startWorker, type RunningWorker, type WorkerDeps } from "./worker";
export { processScan } from "./process-scan";
export { reconcile } from "./reconciler";
export type { ResolveHost } from "@ax/scanner";
export { expirePublicScans } from "./public-scans";
