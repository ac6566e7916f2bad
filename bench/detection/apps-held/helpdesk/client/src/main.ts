import { api } from "./api";
import { banner, ticketDetail, ticketRow } from "./render";

const list = document.querySelector<HTMLUListElement>("#tickets")!;
const detail = document.querySelector<HTMLElement>("#detail")!;
const searchForm = document.querySelector<HTMLFormElement>("#search")!;
const heading = document.querySelector<HTMLElement>("#results-heading")!;
const newForm = document.querySelector<HTMLFormElement>("#new-ticket")!;

async function showTickets(status: string): Promise<void> {
  const tickets = await api.tickets(status);
  list.replaceChildren(...tickets.map(ticketRow));
  const current = new URLSearchParams(location.hash.split("?")[1] ?? "").get("open");
  const match = tickets.find((t) => String(t.id) === current);
  if (match) ticketDetail(detail, match);
}

searchForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(searchForm);
  const q = String(data.get("q") ?? "");
  const results = await api.search(q, String(data.get("sort") ?? "newest"));
  heading.textContent = `${results.length} results for “${q}”`;
  list.replaceChildren(...results.map(ticketRow));
});

newForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(newForm);
  try {
    const { id } = await api.create(String(data.get("subject")), String(data.get("body")), Number(data.get("priority") ?? 3));
    banner(document.body, `Ticket #${id} created`);
    newForm.reset();
    await showTickets("open");
  } catch (err) {
    banner(document.body, err instanceof Error ? err.message : "could not create the ticket", "error");
  }
});

function showNotice(): void {
  const params = new URLSearchParams(location.search);
  const notice = params.get("notice");
  if (notice) {
    const box = document.querySelector<HTMLElement>("#notice")!;
    box.innerHTML = `<p>${decodeURIComponent(notice)}</p>`;
  }
}

function continueAfterLogin(): void {
  const params = new URLSearchParams(location.search);
  const back = params.get("return");
  if (back) window.location.href = back;
}

function continueToSection(): void {
  const section = new URLSearchParams(location.search).get("section");
  const allowed = ["#/tickets", "#/search", "#/new"];
  if (section && allowed.includes(section)) window.location.hash = section;
}

document.querySelector<HTMLFormElement>("#login")?.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(event.target as HTMLFormElement);
  await api.login(String(data.get("email")), String(data.get("password")));
  continueAfterLogin();
});

showNotice();
continueToSection();
void showTickets("open");
