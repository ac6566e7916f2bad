// ax-bench: vulnerable CWE-78 — Koa backup job builds the archive path field from the posted label and runs it through a shell
import { execSync } from "node:child_process";
import Koa from "koa";
import bodyParser from "koa-bodyparser";

class BackupJob {
  constructor(label) {
    this.label = label;
    this.archive = `/var/backups/${label}.tar.gz`;
    this.source = "/srv/data";
  }

  command() {
    return `tar -czf ${this.archive} ${this.source}`;
  }
}

const app = new Koa();
app.use(bodyParser());

app.use(async (ctx) => {
  if (ctx.method !== "POST" || ctx.path !== "/admin/backups") {
    ctx.status = 404;
    return;
  }
  const job = new BackupJob(ctx.request.body.label || "nightly");
  execSync(job.command(), { stdio: "ignore", timeout: 600000 }); // ax-bench: sink
  ctx.status = 201;
  ctx.body = { label: job.label, archive: job.archive };
});

app.listen(3001);
