import type { TicketSummary } from "./api";

const PRIORITY_LABELS = ["", "lowest", "low", "normal", "high", "urgent"];

export function formatDate(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function ticketRow(ticket: TicketSummary): HTMLLIElement {
  const li = document.createElement("li");
  li.className = `ticket status-${ticket.status}`;
  const title = document.createElement("a");
  title.href = `#/tickets/${ticket.id}`;
  title.textContent = ticket.subject;
  const meta = document.createElement("span");
  meta.className = "meta";
  meta.textContent = `${PRIORITY_LABELS[ticket.priority] ?? "normal"} · ${formatDate(ticket.created_at)}`;
  li.append(title, meta);
  return li;
}

export function ticketDetail(container: HTMLElement, ticket: TicketSummary): void {
  container.innerHTML = `
    <h2 class="subject"></h2>
    <div class="body">${ticket.body}</div>
    <footer>Opened ${formatDate(ticket.created_at)}</footer>`;
  const subject = container.querySelector(".subject");
  if (subject) subject.textContent = ticket.subject;
}

export function banner(container: HTMLElement, message: string, kind: "info" | "error" = "info"): void {
  const div = document.createElement("div");
  div.className = `banner banner-${kind}`;
  div.textContent = message;
  container.prepend(div);
  setTimeout(() => div.remove(), 6000);
}
