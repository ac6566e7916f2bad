export interface TicketSummary {
  id: number;
  subject: string;
  body: string;
  status: string;
  priority: number;
  created_at: string;
}

async function request<T>(url: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(url, {
    credentials: "same-origin",
    headers: { "content-type": "application/json", ...(init.headers ?? {}) },
    ...init,
  });
  if (res.status === 401) {
    window.location.assign(`/login.html?return=${encodeURIComponent(location.pathname)}`);
    throw new Error("signed out");
  }
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return (await res.json()) as T;
}

export const api = {
  tickets: (status = "open") => request<TicketSummary[]>(`/api/tickets?status=${encodeURIComponent(status)}`),
  search: (q: string, sort: string) =>
    request<TicketSummary[]>(`/api/tickets/search?q=${encodeURIComponent(q)}&sort=${encodeURIComponent(sort)}`),
  create: (subject: string, body: string, priority: number) =>
    request<{ id: number }>("/api/tickets", { method: "POST", body: JSON.stringify({ subject, body, priority }) }),
  login: (email: string, password: string) =>
    request<{ ok: boolean }>("/api/login", { method: "POST", body: JSON.stringify({ email, password }) }),
};
