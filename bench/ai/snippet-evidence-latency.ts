/**
 * How long the taint analysis of a bare snippet takes (POST /ai/review's evidence): a 40-line
 * handler per language, analysed RUNS times in process (the first call is cold), then RUNS
 * times through the API's snippet thread (analysis, evidenceOf and the round trip); p50 and p90.
 * `node --import tsx bench/ai/snippet-evidence-latency.ts`
 */
import { performance } from "node:perf_hooks";
import { snippetDataflowFacts } from "@ax/scanner";
import { snippetEvidenceInThread } from "../../packages/api-server/src/services/snippet-thread";

const RUNS = 200;

const JAVA = `@PostMapping("/accounts/{id}/transfers")
public ResponseEntity<TransferResult> transfer(@PathVariable("id") long accountId,
                                               @RequestParam("to") String target,
                                               @RequestParam("amount") String amount,
                                               @RequestParam(value = "memo", required = false) String memo,
                                               Principal principal) throws SQLException {
    if (principal == null) {
        return ResponseEntity.status(401).build();
    }
    BigDecimal value;
    try {
        value = new BigDecimal(amount);
    } catch (NumberFormatException e) {
        return ResponseEntity.badRequest().build();
    }
    if (value.signum() <= 0) {
        return ResponseEntity.badRequest().build();
    }
    String note = memo == null ? "" : memo.trim();
    try (Connection conn = dataSource.getConnection()) {
        conn.setAutoCommit(false);
        Statement st = conn.createStatement();
        ResultSet owner = st.executeQuery("SELECT owner FROM accounts WHERE id = " + accountId);
        if (!owner.next() || !owner.getString("owner").equals(principal.getName())) {
            return ResponseEntity.status(403).build();
        }
        ResultSet dest = st.executeQuery("SELECT id FROM accounts WHERE iban = '" + target + "'");
        if (!dest.next()) {
            return ResponseEntity.notFound().build();
        }
        long destId = dest.getLong("id");
        PreparedStatement ins = conn.prepareStatement("INSERT INTO transfers(src, dst, amount, memo) VALUES (?, ?, ?, ?)");
        ins.setLong(1, accountId);
        ins.setLong(2, destId);
        ins.setBigDecimal(3, value);
        ins.setString(4, note);
        ins.executeUpdate();
        conn.commit();
        return ResponseEntity.ok(new TransferResult(accountId, destId, value));
    }
}`;

const PYTHON = `@app.route("/reports/<int:project_id>", methods=["GET"])
@login_required
def project_report(project_id):
    since = request.args.get("since", "")
    status = request.args.get("status", "open")
    order = request.args.get("order", "created")
    if order not in ("created", "updated", "priority"):
        order = "created"
    user = current_user()
    if not user.can_view(project_id):
        abort(403)
    conn = get_db()
    cur = conn.cursor()
    clauses = ["project_id = ?"]
    params = [project_id]
    if since:
        try:
            datetime.strptime(since, "%Y-%m-%d")
        except ValueError:
            abort(400)
        clauses.append("created >= ?")
        params.append(since)
    query = "SELECT id, title, status, created FROM issues WHERE " + " AND ".join(clauses)
    query += " AND status = '" + status + "'"
    query += " ORDER BY " + order
    cur.execute(query, params)
    rows = cur.fetchall()
    issues = []
    for row in rows:
        issues.append({
            "id": row[0],
            "title": row[1],
            "status": row[2],
            "created": row[3],
        })
    summary = {"count": len(issues), "status": status}
    log.info("report for %s by %s", project_id, user.name)
    conn.close()
    return jsonify({"summary": summary, "issues": issues})
`;

const JAVASCRIPT = `router.get("/orders", requireAuth, async (req, res, next) => {
  const { status, from, to, sort } = req.query;
  const limit = Math.min(parseInt(req.query.limit, 10) || 50, 200);
  const offset = parseInt(req.query.offset, 10) || 0;
  const allowedSort = ["created_at", "total", "status"];
  const orderBy = allowedSort.includes(sort) ? sort : "created_at";
  const where = ["customer_id = $1"];
  const params = [req.user.id];
  if (from) {
    params.push(new Date(from));
    where.push("created_at >= $" + params.length);
  }
  if (to) {
    params.push(new Date(to));
    where.push("created_at <= $" + params.length);
  }
  let sql = "SELECT id, status, total, created_at FROM orders WHERE " + where.join(" AND ");
  if (status) {
    sql += " AND status = '" + status + "'";
  }
  sql += " ORDER BY " + orderBy + " DESC LIMIT " + limit + " OFFSET " + offset;
  try {
    const result = await pool.query(sql, params);
    const orders = result.rows.map((row) => ({
      id: row.id,
      status: row.status,
      total: Number(row.total),
      createdAt: row.created_at.toISOString(),
    }));
    res.set("Cache-Control", "no-store");
    res.json({
      orders,
      limit,
      offset,
      count: orders.length,
    });
  } catch (err) {
    next(err);
  }
});`;

const percentile = (times: number[], q: number) =>
  [...times].sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);

async function measure(name: string, code: string, file: string, line: string): Promise<void> {
  const input = { code, file, cwe_id: "CWE-89", line };
  const cold = performance.now();
  const first = snippetDataflowFacts(input);
  const coldMs = performance.now() - cold;
  const local: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    snippetDataflowFacts(input);
    local.push(performance.now() - t);
  }
  await snippetEvidenceInThread(input); // starts the thread
  const threaded: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await snippetEvidenceInThread(input);
    threaded.push(performance.now() - t);
  }
  const lines = code.trimEnd().split("\n").length;
  process.stdout.write(
    `${name.padEnd(10)} ${lines} lines  first ${coldMs.toFixed(1)} ms  in process p50 ${percentile(local, 0.5)} ms p90 ${percentile(local, 0.9)} ms` +
      `  via thread p50 ${percentile(threaded, 0.5)} ms p90 ${percentile(threaded, 0.9)} ms  (${first?.dataflow?.status ?? "none"} at line ${first?.start_line})\n`,
  );
}

await measure("java", JAVA, "TransferController.java", "27");
await measure("python", PYTHON, "reports.py", "26");
await measure("javascript", JAVASCRIPT, "orders.js", "23");
