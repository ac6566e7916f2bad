/** The dataflow analyzer's worker thread (analyzer.ts): analyses the files it is given and posts the findings. */
import { parentPort, workerData } from "node:worker_threads";
import { analyzeCheckout, type ThreadMessage } from "./analyzer";

const port = parentPort;
if (port) {
  const post = (msg: ThreadMessage) => port.postMessage(msg);
  post({ kind: "ready" });
  const { dir, files } = workerData as { dir: string; files: string[] };
  analyzeCheckout(dir, files).then(
    (findings) => post({ kind: "done", findings }),
    (err: unknown) => post({ kind: "failed", message: err instanceof Error ? err.message : String(err) }),
  );
}
