/** The dataflow analyzer's worker thread (dataflow.ts): analyses the checkouts it is sent, one message a job. */
import { parentPort } from "node:worker_threads";
import { analyzeCheckout, forgetKeptAnalyses, type ThreadMessage, type ThreadRequest } from "./dataflow";

const port = parentPort;
if (port) {
  const post = (msg: ThreadMessage) => port.postMessage(msg);
  port.on("message", (req: ThreadRequest) => {
    if (req.kind === "forget") return forgetKeptAnalyses();
    analyzeCheckout(req.dir, req.files).then(
      (analysis) => post({ kind: "done", id: req.id, ...analysis }),
      (err: unknown) => post({ kind: "failed", id: req.id, message: err instanceof Error ? err.message : String(err) }),
    );
  });
  post({ kind: "ready" });
}
