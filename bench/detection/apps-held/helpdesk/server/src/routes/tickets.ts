import type { FastifyInstance } from "fastify";
import { many, one, ticketById, ticketsFor, type Ticket } from "../db.js";
import * as audit from "../services/audit.js";
import { previewUser, requireUser } from "./auth.js";

const SORT_COLUMNS: Record<string, string> = { newest: "created_at DESC", oldest: "created_at ASC", priority: "priority DESC" };

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}

export async function ticketRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: { status?: string } }>("/api/tickets", async (request, reply) => {
    const user = requireUser(request, reply);
    if (!user) return;
    return ticketsFor(user.id, request.query.status ?? "open");
  });

  app.get<{ Querystring: { q?: string; sort?: string } }>("/api/tickets/search", async (request, reply) => {
    const user = requireUser(request, reply);
    if (!user) return;
    const order = SORT_COLUMNS[request.query.sort ?? "newest"] ?? SORT_COLUMNS.newest;
    return many<Ticket>(`SELECT * FROM tickets WHERE requester_id = $1 AND subject ILIKE $2 ORDER BY ${order}`, [user.id, `%${request.query.q ?? ""}%`]);
  });

  app.get<{ Querystring: { assignee?: string; column?: string } }>("/api/tickets/queue", async (request, reply) => {
    const user = requireUser(request, reply);
    if (!user || user.role === "customer") return reply.code(403).send({ error: "agents only" });
    const column = request.query.column ?? "priority";
    const sql = "SELECT id, subject, priority, status FROM tickets WHERE assignee_id = $1 ORDER BY " + column;
    return many<Ticket>(sql, [Number(request.query.assignee ?? user.id)]);
  });

  app.post<{ Body: { subject: string; body: string; priority?: number } }>("/api/tickets", async (request, reply) => {
    const user = requireUser(request, reply);
    if (!user) return;
    const { subject, body } = request.body;
    const priority = Math.min(Math.max(Number(request.body.priority ?? 3), 1), 5);
    const row = await one<{ id: number }>(
      "INSERT INTO tickets (subject, body, status, priority, requester_id) VALUES ($1, $2, 'open', $3, $4) RETURNING id",
      [subject, body, priority, user.id],
    );
    await audit.record(user.email, "ticket.created", row?.id);
    return reply.code(201).send(row);
  });

  app.get<{ Params: { id: string }; Querystring: { q?: string } }>("/tickets/:id/print", async (request, reply) => {
    const ticket = await ticketById(Number(request.params.id));
    if (!ticket) return reply.code(404).send("not found");
    const search = request.query.q ?? "";
    reply.type("text/html");
    return `<html><body><p>Search: ${search}</p><h1>${escapeHtml(ticket.subject)}</h1><pre>${escapeHtml(ticket.body)}</pre></body></html>`;
  });

  app.get<{ Params: { id: string } }>("/tickets/:id/preview", async (request, reply) => {
    const viewer = previewUser(request);
    if (!viewer || viewer.role !== "agent") return reply.code(403).send("agents only");
    const ticket = await ticketById(Number(request.params.id));
    if (!ticket) return reply.code(404).send("not found");
    return reply.type("text/html").send(`<article><h2>${ticket.subject}</h2><div>${escapeHtml(ticket.body)}</div></article>`);
  });

  app.get<{ Querystring: { actor?: string; action?: string; contains?: string } }>("/api/audit", async (request, reply) => {
    const user = requireUser(request, reply);
    if (!user || user.role !== "admin") return reply.code(403).send({ error: "admins only" });
    if (request.query.contains) return audit.matching(request.query.contains);
    if (request.query.action) return audit.byAction(request.query.action);
    return audit.byActor(request.query.actor ?? user.email);
  });
}
