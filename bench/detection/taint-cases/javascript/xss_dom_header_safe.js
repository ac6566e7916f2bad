// ax-bench: safe CWE-79 — browser search header puts only the state object's constant title into innerHTML
/* global document, window, URLSearchParams */

const params = new URLSearchParams(window.location.search);
const state = {
  title: "Search results",
  query: params.get("q") || "",
};

function renderHeader(root) {
  const heading = document.createElement("h2");
  heading.className = "results-title";
  heading.innerHTML = `${state.title} <span class="spinner" aria-hidden="true"></span>`; // ax-bench: sink
  root.prepend(heading);
  const input = root.querySelector("input[name=q]");
  if (input) input.value = state.query;
}

document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("results");
  if (root) renderHeader(root);
});
