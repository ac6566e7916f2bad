// ax-bench: safe CWE-79 — Express "no results" page encodeURIComponent()s the query before putting it into a link's href
import express from "express";
import { searchCatalogue } from "./catalogue.js";

const app = express();

app.get("/search", async (req, res) => {
  const q = String(req.query.q || "");
  const hits = await searchCatalogue(q);
  if (hits.length > 0) {
    res.json(hits);
    return;
  }
  const retry = "/search?fuzzy=1&q=" + encodeURIComponent(q);
  res.type("html");
  res.send(`<!doctype html><title>Search</title><p>Nothing matched.</p><a href="${retry}">Try a fuzzy search</a>`); // ax-bench: sink
});

app.listen(3000);
