/** The baseline: a bare Express 5 server answering "hello", run as its own process like the API. */
import express from "express";

const app = express();
app.use(express.json());
app.all("/{*any}", (_req, res) => {
  res.json({ hello: "world" });
});
const port = Number(process.env.PORT ?? 0);
app.listen(port, "127.0.0.1");
