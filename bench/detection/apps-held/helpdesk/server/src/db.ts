import pg from "pg";
import { config } from "./config.js";

export const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 10 });

export interface Ticket {
  id: number;
  subject: string;
  body: string;
  status: "open" | "pending" | "closed";
  priority: number;
  requester_id: number;
  assignee_id: number | null;
  created_at: string;
}

export async function one<T>(text: string, values: unknown[] = []): Promise<T | undefined> {
  const { rows } = await pool.query(text, values);
  return rows[0] as T | undefined;
}

export async function many<T>(text: string, values: unknown[] = []): Promise<T[]> {
  const { rows } = await pool.query(text, values);
  return rows as T[];
}

export function ticketById(id: number): Promise<Ticket | undefined> {
  return one<Ticket>("SELECT * FROM tickets WHERE id = $1", [id]);
}

export function ticketsFor(requesterId: number, status: string): Promise<Ticket[]> {
  return many<Ticket>(`SELECT * FROM tickets WHERE requester_id = ${requesterId} AND status = '${status}' ORDER BY created_at DESC`);
}
