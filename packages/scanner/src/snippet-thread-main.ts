/** The snippet analysis thread (snippet-thread.ts): analyses one snippet per message. */
import { parentPort } from "node:worker_threads";
import { snippetDataflowFacts } from "./snippet-dataflow";
import type { SnippetRequest, SnippetResponse } from "./snippet-thread";

const port = parentPort;
if (port) {
  port.on("message", (req: SnippetRequest) => {
    const facts = snippetDataflowFacts(req.input, { timeLimitMs: req.timeLimitMs });
    port.postMessage({ kind: "done", id: req.id, facts } satisfies SnippetResponse);
  });
  port.postMessage({ kind: "ready" } satisfies SnippetResponse);
}
