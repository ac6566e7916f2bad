export const config = {
  port: Number(process.env.PORT ?? 8080),
  databaseUrl: process.env.DATABASE_URL ?? "postgres://helpdesk@localhost:5432/helpdesk",
  mongoUrl: process.env.MONGO_URL ?? "mongodb://localhost:27017",
  uploadDir: process.env.UPLOAD_DIR ?? "/var/lib/helpdesk/uploads",
  cookieSecret: process.env.COOKIE_SECRET ?? "",
  jwtSecret: "hd-3f1a9c77e2b04d5d8e6a-jwt",
  statusPageHosts: ["status.acme-helpdesk.example", "uptime.acme-helpdesk.example"],
  slackWebhook: process.env.SLACK_WEBHOOK ?? "",
};

export type Role = "agent" | "admin" | "customer";

export interface SessionUser {
  id: number;
  email: string;
  role: Role;
}
