// The templates analyzer on real template files written to a temp checkout: each engine has a
// vulnerable file and its nearest safe twin, which must stay silent.
import type { NormalizedFinding } from "@ax/contracts";
import { templatesAnalyzer } from "./templates";
import { analyzerContext, writeCheckout } from "../../test/analyzer-fixture";
import { removeDir, tempDir } from "../../test/git-fixtures";

let root: string;
beforeAll(() => {
  root = tempDir();
});
afterAll(() => removeDir(root));

let n = 0;
async function scan(files: Record<string, string>): Promise<NormalizedFinding[]> {
  const dir = writeCheckout(root, `repo-${n++}`, files);
  return templatesAnalyzer().run(analyzerContext(root, dir, Object.keys(files)));
}
const found = (findings: NormalizedFinding[]) => findings.map((f) => [f.file, f.start_line, f.rule_id, f.cwe_id, f.confidence]);
const page = (...lines: string[]) => `${lines.join("\n")}\n`;

describe("Vue and Svelte", () => {
  it("reports v-html and {@html} of dynamic values, and request data bound to href", async () => {
    const vue = page(
      "<template>",
      '  <div v-html="comment.body"></div>',
      '  <div v-html="message"></div>',
      '  <a :href="$route.query.next">next</a>',
      "</template>",
    );
    const svelte = page("<script>export let bio;</script>", "<p>{@html bio}</p>", "<p>{@html user.bio}</p>");
    expect(found(await scan({ "src/Comment.vue": vue, "src/Bio.svelte": svelte }))).toEqual([
      ["src/Comment.vue", 2, "templates.tpl-vue-v-html", "CWE-79", "HIGH"],
      ["src/Comment.vue", 3, "templates.tpl-vue-v-html", "CWE-79", "MEDIUM"],
      ["src/Comment.vue", 4, "templates.tpl-unsafe-attribute-context", "CWE-79", "MEDIUM"],
      ["src/Bio.svelte", 2, "templates.tpl-svelte-html", "CWE-79", "MEDIUM"],
      ["src/Bio.svelte", 3, "templates.tpl-svelte-html", "CWE-79", "HIGH"],
    ]);
  });

  it("stays silent on escaped output, constants, sanitized values and comments", async () => {
    const vue = page(
      "<template>",
      "  <div>{{ comment.body }}</div>",
      "  <div v-html=\"'<b>static</b>'\"></div>",
      '  <div v-html="DOMPurify.sanitize(comment.body)"></div>',
      '  <a :href="item.url">x</a>',
      '  <!-- <div v-html="comment.body"></div> -->',
      "</template>",
    );
    const svelte = page("<p>{bio}</p>", "<p>{@html DOMPurify.sanitize(user.bio)}</p>", "<p>{@html '<br>'}</p>");
    expect(found(await scan({ "src/Comment.vue": vue, "src/Bio.svelte": svelte }))).toEqual([]);
  });
});

describe("EJS", () => {
  it("reports <%- %> of dynamic values and includes of a computed path", async () => {
    const ejs = page("<h1><%- req.query.title %></h1>", "<div><%- post.html %></div>", "<%- include('partials/' + theme) %>");
    expect(found(await scan({ "views/post.ejs": ejs }))).toEqual([
      ["views/post.ejs", 1, "templates.tpl-ejs-unescaped", "CWE-79", "HIGH"],
      ["views/post.ejs", 2, "templates.tpl-ejs-unescaped", "CWE-79", "MEDIUM"],
      ["views/post.ejs", 3, "templates.tpl-ejs-dynamic-include", "CWE-98", "MEDIUM"],
    ]);
  });

  it("stays silent on <%= %>, literal includes, layout bodies and comments", async () => {
    const ejs = page(
      "<h1><%= req.query.title %></h1>",
      "<%- include('partials/header', { user }) %>",
      '<%- include("footer") -%>',
      "<main><%- body %></main>",
      "<%# <%- req.query.x %> %>",
      "<div><%- sanitizeHtml(post.html) %></div>",
    );
    expect(found(await scan({ "views/layout.ejs": ejs }))).toEqual([]);
  });
});

describe("Handlebars and Mustache", () => {
  it("reports triple-stash and {{& }} output and interpolated handlers and hrefs", async () => {
    const hbs = page(
      "<p>{{{comment.text}}}</p>",
      "<p>{{& bio}}</p>",
      "<button onclick=\"go('{{id}}')\">x</button>",
      '<a href="{{user.homepage}}">l</a>',
    );
    expect(found(await scan({ "views/c.hbs": hbs, "views/d.mustache": "<p>{{{ input }}}</p>\n" }))).toEqual([
      ["views/c.hbs", 1, "templates.tpl-handlebars-unescaped", "CWE-79", "HIGH"],
      ["views/c.hbs", 2, "templates.tpl-handlebars-unescaped", "CWE-79", "MEDIUM"],
      ["views/c.hbs", 3, "templates.tpl-unsafe-attribute-context", "CWE-79", "MEDIUM"],
      ["views/c.hbs", 4, "templates.tpl-unsafe-attribute-context", "CWE-79", "MEDIUM"],
      ["views/d.mustache", 1, "templates.tpl-handlebars-unescaped", "CWE-79", "HIGH"],
    ]);
  });

  it("stays silent on double-stash text, layout bodies, fixed URL prefixes and comments", async () => {
    const hbs = page(
      "<p>{{comment.text}}</p>",
      "<main>{{{body}}}</main>",
      '<a href="/users/{{id}}">u</a>',
      '<a href="{{next_page_url}}">more</a>',
      "{{!-- {{{comment.text}}} --}}",
      "{{{{raw}}}} {{{x}}} {{{{/raw}}}}",
    );
    expect(found(await scan({ "views/main.handlebars": hbs }))).toEqual([]);
  });
});

describe("Jinja2, Django, Nunjucks and Twig", () => {
  it("reports |safe, |raw and output inside autoescape-off blocks", async () => {
    const html = page(
      "{% extends 'base.html' %}",
      "{% block content %}",
      "<p>{{ request.args.q|safe }}</p>",
      "{% autoescape off %}<div>{{ note.html }}</div>{% endautoescape %}",
      '<a href="{{ profile.website }}">site</a>',
      "{% endblock %}",
    );
    const twig = page("{% autoescape false %}", "{{ comment.body }}", "{% endautoescape %}", "{{ post.content|raw }}");
    expect(found(await scan({ "templates/search.html": html, "templates/c.twig": twig, "t/n.njk": "{{ user.bio | safe }}\n" }))).toEqual([
      ["templates/search.html", 3, "templates.tpl-jinja-safe", "CWE-79", "HIGH"],
      ["templates/search.html", 4, "templates.tpl-jinja-autoescape-off", "CWE-79", "MEDIUM"],
      ["templates/search.html", 5, "templates.tpl-unsafe-attribute-context", "CWE-79", "MEDIUM"],
      ["templates/c.twig", 2, "templates.tpl-jinja-autoescape-off", "CWE-79", "HIGH"],
      ["templates/c.twig", 4, "templates.tpl-jinja-safe", "CWE-79", "MEDIUM"],
      ["t/n.njk", 1, "templates.tpl-jinja-safe", "CWE-79", "HIGH"],
    ]);
  });

  it("stays silent on escaped output, escaping filters, url_for, autoescape on and plain HTML", async () => {
    const html = page(
      "{% block content %}",
      "<p>{{ request.args.q }}</p>",
      "<p>{{ request.args.q|e|safe }}</p>",
      "<p>{{ note.html|striptags|safe }}</p>",
      "<script>var d = {{ data|tojson|safe }};</script>",
      "{% autoescape true %}<div>{{ note.html }}</div>{% endautoescape %}",
      "{% autoescape off %}{{ note.html|escape }}{{ 'x' }}{% endautoescape %}",
      "<a href=\"{{ url_for('index') }}\">home</a>",
      '<form action="{{ request.path }}"><a href="{{ page.next_url }}">n</a></form>',
      '<a href="/u/{{ user.id }}">me</a>',
      "{# {{ request.args.q|safe }} #}",
      "{% endblock %}",
    );
    const plain = page("<!doctype html>", '<a href="javascript:void(0)" onclick="go()">x</a>', "<p>{{ angular.value }}</p>");
    expect(found(await scan({ "templates/search.html": html, "static/index.html": plain }))).toEqual([]);
  });
});

describe("Thymeleaf and FreeMarker", () => {
  it("reports th:utext, [( )], ?no_esc and output inside <#noautoesc>", async () => {
    const th = page('<html xmlns:th="http://www.thymeleaf.org">', '<p th:utext="${param.msg}">m</p>', "<p>[(${bio})]</p>", "</html>");
    const ftl = page("<p>${comment.text?no_esc}</p>", "<#noautoesc>", "<div>${page.html}</div>", "</#noautoesc>");
    expect(found(await scan({ "src/main/resources/templates/m.html": th, "views/p.ftlh": ftl }))).toEqual([
      ["src/main/resources/templates/m.html", 2, "templates.tpl-thymeleaf-utext", "CWE-79", "HIGH"],
      ["src/main/resources/templates/m.html", 3, "templates.tpl-thymeleaf-utext", "CWE-79", "MEDIUM"],
      ["views/p.ftlh", 1, "templates.tpl-freemarker-no-esc", "CWE-79", "HIGH"],
      ["views/p.ftlh", 3, "templates.tpl-freemarker-no-esc", "CWE-79", "MEDIUM"],
    ]);
  });

  it("stays silent on th:text, message keys, [[ ]], escaped FreeMarker output and comments", async () => {
    const th = page(
      '<html xmlns:th="http://www.thymeleaf.org">',
      '<p th:text="${param.msg}">m</p>',
      '<p th:utext="#{welcome.html}">w</p>',
      "<p>[[${bio}]]</p>",
      "</html>",
    );
    const ftl = page(
      "<p>${comment.text}</p>",
      '<p>${"<b>"?no_esc}</p>',
      "<#noautoesc>${page.html?html}</#noautoesc>",
      "<#-- ${x?no_esc} -->",
    );
    expect(found(await scan({ "templates/m.html": th, "views/p.ftlh": ftl }))).toEqual([]);
  });
});

describe("the finding", () => {
  it("carries message, remediation, snippet and column; test and vendored files are handled", async () => {
    const files = {
      "src/A.vue": '<template>\n  <div v-html="req.body.html"></div>\n</template>\n',
      "test/fixtures/A.vue": '<template><div v-html="req.body.html"></div></template>\n',
      "node_modules/x/B.vue": '<template><div v-html="req.body.html"></div></template>\n',
      "public/app.min.ejs": "<%- req.query.x %>\n",
    };
    const findings = await scan(files);
    expect(found(findings)).toEqual([
      ["src/A.vue", 2, "templates.tpl-vue-v-html", "CWE-79", "HIGH"],
      ["test/fixtures/A.vue", 1, "templates.tpl-vue-v-html", "CWE-79", "MEDIUM"],
    ]);
    expect(findings[0]).toMatchObject({
      analyzer: "templates",
      severity: "HIGH",
      start_column: 16,
      snippet: '<div v-html="req.body.html"></div>',
      message: "Vue v-html renders a dynamic value as HTML: req.body.html",
    });
    expect(findings[0]?.remediation).toMatch(/DOMPurify/);
  });
});
