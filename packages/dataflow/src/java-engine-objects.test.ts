/**
 * The Java taint analysis end to end (see test/java-twins.ts): calls into other files and call
 * chains, and fields: of the same instance across methods, and of other objects.
 */
import { COMMAND, dedent, inServlet, MAIN, PKG, RUNNER, RUNNER_SRC, servlet, twins, type Files } from "../test/java-twins";

// ---- 10. other files: instance and static methods ----------------------------------------

const SHELL = `${PKG}/Shell.java`;
const SHELL_SRC = dedent(`
  package com.example.web;

  import java.io.IOException;

  public final class Shell {
    private Shell() {}

    public static void run(String command) throws IOException {
      Runtime.getRuntime().exec("sh -c " + command); // SINK
    }
  }
`);

twins("cross-file call", [
  {
    name: "new Other().method(data)",
    vuln: { [MAIN]: servlet(`new CommandRunner().ping(request.getParameter("host"));`), [RUNNER]: RUNNER_SRC },
    safe: { [MAIN]: servlet(`String host = request.getParameter("host");\nnew CommandRunner().ping("localhost");`), [RUNNER]: RUNNER_SRC },
    expect: COMMAND,
  },
  {
    name: "instance held in a local variable",
    vuln: {
      [MAIN]: servlet(`CommandRunner runner = new CommandRunner();\nrunner.ping(request.getParameter("host"));`),
      [RUNNER]: RUNNER_SRC,
    },
    safe: {
      [MAIN]: servlet(
        `CommandRunner runner = new CommandRunner();\nString host = request.getParameter("host");\nrunner.ping("localhost");`,
      ),
      [RUNNER]: RUNNER_SRC,
    },
    expect: COMMAND,
  },
  {
    name: "static method of another class",
    vuln: { [MAIN]: servlet(`String cmd = request.getParameter("cmd");\nShell.run("ls " + cmd);`), [SHELL]: SHELL_SRC },
    safe: { [MAIN]: servlet(`String cmd = request.getParameter("cmd");\nShell.run("ls /tmp");`), [SHELL]: SHELL_SRC },
    expect: COMMAND,
  },
]);

const DAO = `${PKG}/UserDao.java`;
function userDao(query: string): string {
  return dedent(`
    package com.example.web;

    import java.sql.*;

    public class UserDao {
      private Connection conn;

      public void update(String name) throws SQLException {
        ${query}
      }
    }
  `);
}

twins("cross-file call on an injected field", [
  {
    name: "repository method named like a sink (update): the repository's code decides",
    vuln: {
      [MAIN]: servlet(`userDao.update(request.getParameter("name"));`, `private final UserDao userDao = new UserDao();`),
      [DAO]: userDao(`conn.createStatement().executeUpdate("UPDATE users SET seen = 1 WHERE name = '" + name + "'"); // SINK`),
    },
    safe: {
      [MAIN]: servlet(`userDao.update(request.getParameter("name"));`, `private final UserDao userDao = new UserDao();`),
      [DAO]: userDao(
        `PreparedStatement ps = conn.prepareStatement("UPDATE users SET seen = 1 WHERE name = ?"); ps.setString(1, name); ps.executeUpdate(); // SINK`,
      ),
    },
  },
]);

/** A call chain `depth` calls deep: the servlet calls Layer1.handle, …, Layer<depth>.handle runs the command. */
function layers(depth: number, arg: string): Files {
  const files: Record<string, string> = { [MAIN]: servlet(`String host = request.getParameter("host");\nnew Layer1().handle(${arg});`) };
  for (let i = 1; i <= depth; i++) {
    const body = i === depth ? `Runtime.getRuntime().exec("ping -c 1 " + host); // SINK` : `new Layer${i + 1}().handle(host);`;
    files[`${PKG}/Layer${i}.java`] =
      `package com.example.web;\n\npublic class Layer${i} {\n  public void handle(String host) throws java.io.IOException {\n    ${body}\n  }\n}\n`;
  }
  return files;
}

twins("call chains", [
  { name: "four calls deep (Juliet _54 shape)", vuln: layers(4, "host"), safe: layers(4, `"localhost"`), expect: COMMAND },
  {
    name: "five calls deep",
    vuln: layers(5, "host"),
    safe: layers(5, `"localhost"`),
    expect: COMMAND,
  },
]);

// ---- 11. instance field written in one method, read in another ---------------------------

const SORT_MEMBERS = `
  private String sortColumn;

  private void listUsers() throws SQLException {
    conn.createStatement().executeQuery("SELECT * FROM users ORDER BY " + sortColumn); // SINK
  }
`;

twins("instance field across methods", [
  {
    name: "this.field = source; other method reads it",
    vuln: inServlet(`this.sortColumn = request.getParameter("sort");\nlistUsers();`, SORT_MEMBERS),
    safe: inServlet(`String sort = request.getParameter("sort");\nthis.sortColumn = "name";\nlistUsers();`, SORT_MEMBERS),
  },
  {
    name: "bare field name written",
    vuln: inServlet(`sortColumn = request.getParameter("sort");\nlistUsers();`, SORT_MEMBERS),
    safe: inServlet(`String sort = request.getParameter("sort");\nsortColumn = "name";\nlistUsers();`, SORT_MEMBERS),
  },
]);

const QUERY_OBJ = `${PKG}/UserQuery.java`;
const QUERY_OBJ_SRC = dedent(`
  package com.example.web;

  import java.sql.*;

  public class UserQuery {
    private final Connection conn;
    private String nameFilter;

    public UserQuery(Connection conn) {
      this.conn = conn;
    }

    public UserQuery(Connection conn, String nameFilter) {
      this.conn = conn;
      this.nameFilter = nameFilter;
    }

    public void setNameFilter(String nameFilter) {
      this.nameFilter = nameFilter;
    }

    public ResultSet run() throws SQLException {
      return conn.createStatement().executeQuery("SELECT * FROM users WHERE name = '" + nameFilter + "'"); // SINK
    }
  }
`);
const FORM = `${PKG}/UserForm.java`;
const FORM_SRC = dedent(`
  package com.example.web;

  public class UserForm {
    public String name;

    public String getName() {
      return name;
    }
  }
`);
twins("fields of another object", [
  {
    name: "setter, then a method reading the field",
    vuln: {
      [MAIN]: servlet(`UserQuery q = new UserQuery(conn);\nq.setNameFilter(request.getParameter("name"));\nq.run();`),
      [QUERY_OBJ]: QUERY_OBJ_SRC,
    },
    safe: {
      [MAIN]: servlet(
        `String name = request.getParameter("name");\nUserQuery q = new UserQuery(conn);\nq.setNameFilter("guest");\nq.run();`,
      ),
      [QUERY_OBJ]: QUERY_OBJ_SRC,
    },
  },
  {
    name: "constructor argument stored in a field",
    vuln: { [MAIN]: servlet(`new UserQuery(conn, request.getParameter("name")).run();`), [QUERY_OBJ]: QUERY_OBJ_SRC },
    safe: {
      [MAIN]: servlet(`String name = request.getParameter("name");\nnew UserQuery(conn, "guest").run();`),
      [QUERY_OBJ]: QUERY_OBJ_SRC,
    },
  },
  {
    name: "public field written by the caller, read back through a getter",
    vuln: {
      [MAIN]: servlet(
        `UserForm form = new UserForm();\nform.name = request.getParameter("name");\nstmt.executeQuery("SELECT * FROM users WHERE name = '" + ` +
          `form.getName() + "'"); // SINK`,
      ),
      [FORM]: FORM_SRC,
    },
    safe: {
      [MAIN]: servlet(
        `String name = request.getParameter("name");\nUserForm form = new UserForm();\nform.name = "guest";\n` +
          `stmt.executeQuery("SELECT * FROM users WHERE name = '" + form.getName() + "'"); // SINK`,
      ),
      [FORM]: FORM_SRC,
    },
    bug: {
      vuln:
        "interp.ts: `form.name = …` on a local object is kept in the local's keys, but the getter reads the field store " +
        "`UserForm.name` (source facts written via this/Class only) and the receiver's value is not passed to the callee",
    },
  },
  {
    name: "static field of another class (Juliet _68 shape)",
    vuln: {
      [MAIN]: servlet(`Holder.data = request.getParameter("cmd");\nnew Worker().work();`),
      [`${PKG}/Holder.java`]: `package com.example.web;\n\npublic class Holder {\n  public static String data;\n}\n`,
      [`${PKG}/Worker.java`]:
        `package com.example.web;\n\npublic class Worker {\n  public void work() throws java.io.IOException {\n` +
        `    Runtime.getRuntime().exec(Holder.data); // SINK\n  }\n}\n`,
    },
    safe: {
      [MAIN]: servlet(`String cmd = request.getParameter("cmd");\nHolder.data = "uptime";\nnew Worker().work();`),
      [`${PKG}/Holder.java`]: `package com.example.web;\n\npublic class Holder {\n  public static String data;\n}\n`,
      [`${PKG}/Worker.java`]:
        `package com.example.web;\n\npublic class Worker {\n  public void work() throws java.io.IOException {\n` +
        `    Runtime.getRuntime().exec(Holder.data); // SINK\n  }\n}\n`,
    },
    expect: COMMAND,
  },
]);
