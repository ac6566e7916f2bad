import { MongoClient, type Collection } from "mongodb";
import { config } from "../config.js";

interface AuditEvent {
  actor: string;
  action: string;
  ticketId?: number;
  at: Date;
  detail?: Record<string, unknown>;
}

const client = new MongoClient(config.mongoUrl);
let events: Collection<AuditEvent> | null = null;

async function collection(): Promise<Collection<AuditEvent>> {
  if (!events) {
    await client.connect();
    events = client.db("helpdesk").collection<AuditEvent>("audit");
  }
  return events;
}

export async function record(actor: string, action: string, ticketId?: number, detail?: Record<string, unknown>): Promise<void> {
  const c = await collection();
  await c.insertOne({ actor, action, ticketId, detail, at: new Date() });
}

export async function byActor(actor: unknown, limit = 50): Promise<AuditEvent[]> {
  const c = await collection();
  return c.find({ actor: actor as string }).sort({ at: -1 }).limit(limit).toArray();
}

export async function byAction(action: string): Promise<AuditEvent[]> {
  const c = await collection();
  return c.find({ action: String(action) }).sort({ at: -1 }).limit(100).toArray();
}

interface Integration {
  name: string;
  key: string;
  ownerEmail: string;
  active: boolean;
}

export async function integrationByKey(key: unknown): Promise<Integration | null> {
  await collection();
  return client.db("helpdesk").collection<Integration>("integrations").findOne({ key: key as string, active: true });
}

export async function matching(expression: string): Promise<AuditEvent[]> {
  const c = await collection();
  return c.find({ $where: `this.action.indexOf('${expression}') >= 0` }).limit(100).toArray();
}
