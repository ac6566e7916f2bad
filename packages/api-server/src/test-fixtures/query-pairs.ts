/**
 * Parameterized and string-concatenated SQL queries reading a request parameter, in the style
 * of real handlers (Spring, servlets, Flask, Django, Express): pairs of our own, written for
 * the review's evidence (issue 21: "Parameterized vs concatenated queries … get the right
 * class"). `line` is the query's line in `code` (1-based); `vulnerable` is the true class.
 * Names carry no verdict (no "bad"/"safe"), so a model cannot read the label off them.
 */
export interface QueryPair {
  /** Pair and side, for test names. */
  name: string;
  language: "java" | "python" | "javascript";
  file: string;
  cwe_id: "CWE-89";
  line: number;
  vulnerable: boolean;
  code: string;
}

const springController = (query: string) => `@GetMapping("/customers/search")
public List<Customer> search(@RequestParam("lastName") String lastName) throws SQLException {
    List<Customer> result = new ArrayList<>();
    try (Connection conn = dataSource.getConnection()) {
${query}
        while (rs.next()) {
            result.add(new Customer(rs.getLong("id"), rs.getString("first_name"), rs.getString("last_name")));
        }
    }
    return result;
}`;

const servlet = (query: string) => `public class OrderLookupServlet extends HttpServlet {
    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws ServletException, IOException {
        String orderId = request.getParameter("orderId");
        response.setContentType("application/json");
        try (Connection conn = DriverManager.getConnection(DB_URL, DB_USER, DB_PASSWORD)) {
${query}
            PrintWriter out = response.getWriter();
            while (rs.next()) {
                out.println(rs.getString("status"));
            }
        } catch (SQLException e) {
            response.sendError(500);
        }
    }
}`;

const flask = (query: string) => `@app.route("/api/books")
def find_books():
    author = request.args.get("author", "")
    conn = sqlite3.connect(DATABASE)
    cur = conn.cursor()
${query}
    rows = cur.fetchall()
    conn.close()
    return jsonify([dict(id=r[0], title=r[1]) for r in rows])
`;

const django = (query: string) => `def ticket_list(request):
    project = request.GET.get("project")
    with connection.cursor() as cursor:
${query}
        rows = cursor.fetchall()
    tickets = [{"id": r[0], "title": r[1], "state": r[2]} for r in rows]
    return JsonResponse({"tickets": tickets})
`;

const expressMysql = (query: string) => `const express = require("express");
const mysql = require("mysql");
const router = express.Router();
const connection = mysql.createConnection({ host: process.env.DB_HOST, user: "shop", database: "shop" });

router.get("/products", (req, res) => {
  const category = req.query.category;
${query}
    if (err) {
      return res.status(500).json({ error: "query failed" });
    }
    res.json(rows);
  });
});

module.exports = router;`;

const expressPg = (query: string) => `const { Pool } = require("pg");
const pool = new Pool();

app.get("/users/:id/invoices", async (req, res) => {
  const userId = req.params.id;
  try {
${query}
    res.json(result.rows);
  } catch (e) {
    res.status(500).send("error");
  }
});`;

export const QUERY_PAIRS: readonly QueryPair[] = [
  {
    name: "Spring @RequestParam, Statement with concatenation",
    language: "java",
    file: "src/main/java/com/example/shop/CustomerController.java",
    cwe_id: "CWE-89",
    line: 6,
    vulnerable: true,
    code: springController(`        Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery("SELECT id, first_name, last_name FROM customers WHERE last_name = '" + lastName + "'");`),
  },
  {
    name: "Spring @RequestParam, PreparedStatement with a bound parameter",
    language: "java",
    file: "src/main/java/com/example/shop/CustomerController.java",
    cwe_id: "CWE-89",
    line: 7,
    vulnerable: false,
    code: springController(`        PreparedStatement ps = conn.prepareStatement("SELECT id, first_name, last_name FROM customers WHERE last_name = ?");
        ps.setString(1, lastName);
        ResultSet rs = ps.executeQuery();`),
  },
  {
    name: "servlet getParameter, Statement with concatenation",
    language: "java",
    file: "src/main/java/com/example/orders/OrderLookupServlet.java",
    cwe_id: "CWE-89",
    line: 8,
    vulnerable: true,
    code: servlet(`            Statement st = conn.createStatement();
            ResultSet rs = st.executeQuery("SELECT status FROM orders WHERE id = " + orderId);`),
  },
  {
    name: "servlet getParameter, PreparedStatement with a bound parameter",
    language: "java",
    file: "src/main/java/com/example/orders/OrderLookupServlet.java",
    cwe_id: "CWE-89",
    line: 9,
    vulnerable: false,
    code: servlet(`            PreparedStatement ps = conn.prepareStatement("SELECT status FROM orders WHERE id = ?");
            ps.setString(1, orderId);
            ResultSet rs = ps.executeQuery();`),
  },
  {
    name: "Flask request.args, execute with concatenation",
    language: "python",
    file: "app/views/books.py",
    cwe_id: "CWE-89",
    line: 6,
    vulnerable: true,
    code: flask(`    cur.execute("SELECT id, title FROM books WHERE author = '" + author + "'")`),
  },
  {
    name: "Flask request.args, execute with a bound parameter",
    language: "python",
    file: "app/views/books.py",
    cwe_id: "CWE-89",
    line: 6,
    vulnerable: false,
    code: flask(`    cur.execute("SELECT id, title FROM books WHERE author = ?", (author,))`),
  },
  {
    name: "Django request.GET, cursor.execute with an f-string",
    language: "python",
    file: "tracker/views.py",
    cwe_id: "CWE-89",
    line: 4,
    vulnerable: true,
    code: django(`        cursor.execute(f"SELECT id, title, state FROM tracker_ticket WHERE project = '{project}'")`),
  },
  {
    name: "Django request.GET, cursor.execute with params",
    language: "python",
    file: "tracker/views.py",
    cwe_id: "CWE-89",
    line: 4,
    vulnerable: false,
    code: django(`        cursor.execute("SELECT id, title, state FROM tracker_ticket WHERE project = %s", [project])`),
  },
  {
    name: "Express req.query, mysql query with concatenation",
    language: "javascript",
    file: "routes/products.js",
    cwe_id: "CWE-89",
    line: 8,
    vulnerable: true,
    code: expressMysql(`  connection.query("SELECT id, name, price FROM products WHERE category = '" + category + "'", (err, rows) => {`),
  },
  {
    name: "Express req.query, mysql query with a placeholder",
    language: "javascript",
    file: "routes/products.js",
    cwe_id: "CWE-89",
    line: 8,
    vulnerable: false,
    code: expressMysql(`  connection.query("SELECT id, name, price FROM products WHERE category = ?", [category], (err, rows) => {`),
  },
  {
    name: "Express req.params, pg query with a template literal",
    language: "javascript",
    file: "src/routes/invoices.js",
    cwe_id: "CWE-89",
    line: 7,
    vulnerable: true,
    code: expressPg(
      `    const result = await pool.query(\`SELECT id, total FROM invoices WHERE user_id = \${userId} ORDER BY issued_at DESC\`);`,
    ),
  },
  {
    name: "Express req.params, pg query with $1",
    language: "javascript",
    file: "src/routes/invoices.js",
    cwe_id: "CWE-89",
    line: 7,
    vulnerable: false,
    code: expressPg(
      `    const result = await pool.query("SELECT id, total FROM invoices WHERE user_id = $1 ORDER BY issued_at DESC", [userId]);`,
    ),
  },
];
