/** The snippet evidence thread (snippet-thread.ts): the evidence of one review body per message. */
import { parentPort } from "node:worker_threads";
import { snippetEvidenceHere } from "./snippet-evidence-here";
import type { SnippetRequest, SnippetResponse } from "./snippet-thread";

const port = parentPort;
if (port) {
  port.on("message", (req: SnippetRequest) => {
    const result = snippetEvidenceHere(req.input, req.timeLimitMs);
    port.postMessage({ kind: "done", id: req.id, result } satisfies SnippetResponse);
  });
  port.postMessage({ kind: "ready" } satisfies SnippetResponse);
}
