import { execFile, exec } from "node:child_process";
import { createReadStream } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { Agent as HttpsAgent, get as httpsGet } from "node:https";
import path from "node:path";
import { promisify } from "node:util";
import type { FastifyInstance } from "fastify";
import yaml from "js-yaml";
import { config } from "../config.js";
import * as audit from "../services/audit.js";
import { requireUser } from "./auth.js";

const execFileAsync = promisify(execFile);
const crmAgent = new HttpsAgent({ rejectUnauthorized: false });
const ATTACHMENT_ROOT = path.resolve(config.uploadDir);

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`upstream answered ${res.status}`);
  return res.json();
}

export async function integrationRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: { url: string } }>("/api/integrations/status", async (request, reply) => {
    const target = new URL(request.query.url);
    if (target.protocol !== "https:" || !config.statusPageHosts.includes(target.hostname)) {
      return reply.code(400).send({ error: "status page not allowed" });
    }
    return getJson(target.toString());
  });

  app.post<{ Body: { feedUrl: string } }>("/api/integrations/feed", async (request, reply) => {
    const user = requireUser(request, reply);
    if (!user) return;
    return getJson(request.body.feedUrl);
  });

  app.post<{ Body: { key: unknown; event: string; ticketId?: number } }>("/api/integrations/events", async (request, reply) => {
    const integration = await audit.integrationByKey(request.body.key);
    if (!integration) return reply.code(401).send({ error: "unknown integration" });
    await audit.record(integration.name, String(request.body.event), request.body.ticketId);
    return reply.code(202).send({ ok: true });
  });

  app.post("/api/integrations/workflow", async (request, reply) => {
    const user = requireUser(request, reply);
    if (!user || user.role !== "admin") return reply.code(403).send({ error: "admins only" });
    const workflow = yaml.load(String(request.body)) as { steps?: unknown[] };
    return { steps: Array.isArray(workflow?.steps) ? workflow.steps.length : 0 };
  });

  app.post("/api/integrations/legacy-rules", async (request, reply) => {
    const user = requireUser(request, reply);
    if (!user || user.role !== "admin") return reply.code(403).send({ error: "admins only" });
    const rules = eval("(" + String(request.body) + ")") as Record<string, unknown>;
    return { rules: Object.keys(rules) };
  });

  app.post<{ Params: { ticketId: string } }>("/api/tickets/:ticketId/attachments", async (request, reply) => {
    const user = requireUser(request, reply);
    if (!user) return;
    const file = await request.file();
    if (!file) return reply.code(400).send({ error: "no file" });
    const dir = path.join(ATTACHMENT_ROOT, String(Number(request.params.ticketId)));
    await mkdir(dir, { recursive: true });
    const dest = path.join(dir, path.basename(file.filename));
    await writeFile(dest, await file.toBuffer());
    await execFileAsync("/usr/bin/clamscan", ["--no-summary", dest]);
    return reply.code(201).send({ name: path.basename(dest) });
  });

  app.get<{ Params: { ticketId: string }; Querystring: { name: string } }>("/api/tickets/:ticketId/attachments", async (request, reply) => {
    const user = requireUser(request, reply);
    if (!user) return;
    const file = path.resolve(ATTACHMENT_ROOT, request.params.ticketId, request.query.name);
    if (!file.startsWith(ATTACHMENT_ROOT + path.sep)) return reply.code(404).send({ error: "not found" });
    return reply.type("application/octet-stream").send(createReadStream(file));
  });

  app.get<{ Querystring: { file: string } }>("/api/exports", async (request, reply) => {
    const user = requireUser(request, reply);
    if (!user || user.role !== "admin") return reply.code(403).send({ error: "admins only" });
    const content = await readFile(path.join(config.uploadDir, "exports", request.query.file));
    return reply.type("text/csv").send(content);
  });

  app.post<{ Body: { ticketId: number; format: string } }>("/api/exports", async (request, reply) => {
    const user = requireUser(request, reply);
    if (!user || user.role !== "admin") return reply.code(403).send({ error: "admins only" });
    const out = path.join(config.uploadDir, "exports", `ticket-${Number(request.body.ticketId)}.${request.body.format}`);
    await new Promise<void>((resolve, reject) =>
      exec(`helpdesk-export --ticket ${Number(request.body.ticketId)} --out "${out}"`, (err) => (err ? reject(err) : resolve())),
    );
    return { file: path.basename(out) };
  });

  app.post<{ Body: { text: string } }>("/api/integrations/slack", async (request, reply) => {
    const user = requireUser(request, reply);
    if (!user) return;
    const res = await fetch(config.slackWebhook, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: request.body.text }),
    });
    return reply.code(res.ok ? 204 : 502).send();
  });

  app.get("/api/integrations/legacy-crm", async () => {
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpsGet("https://crm.acme-helpdesk.example/api/health", { agent: crmAgent }, (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve(text));
      });
      req.on("error", reject);
    });
    return { crm: body.length > 0 };
  });
}
