// ax-bench: vulnerable CWE-79 — browser search header writes the query from the page URL into innerHTML via a state object
/* global document, window, URLSearchParams */

const params = new URLSearchParams(window.location.search);
const state = {
  title: "Search results",
  query: params.get("q") || "",
};

function renderHeader(root) {
  const heading = document.createElement("h2");
  heading.className = "results-title";
  heading.innerHTML = `${state.title} for <em>${state.query}</em>`; // ax-bench: sink
  root.prepend(heading);
  const input = root.querySelector("input[name=q]");
  if (input) input.value = state.query;
}

document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("results");
  if (root) renderHeader(root);
});
