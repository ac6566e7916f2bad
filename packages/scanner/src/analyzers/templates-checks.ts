/**
 * The templates analyzer's checks: the constructs that switch an engine's auto-escaping off on
 * a dynamic value (Vue v-html, Svelte {@html}, EJS <%- %>, Handlebars/Mustache {{{ }}} and
 * {{& }}, Jinja/Django/Nunjucks/Twig |safe and |raw and autoescape-off blocks, Thymeleaf
 * th:utext and [( )], FreeMarker ?no_esc and <#noautoesc>), EJS includes of a non-literal path,
 * and interpolations in contexts auto-escaping does not protect (event handlers, the start of
 * an href/action, javascript: URLs). Constants and values the template itself escapes or
 * sanitizes are not reported (templates-expr.ts).
 */
import type { Level } from "@ax/contracts";
import { textCheck, type TextCheck, type TextHit } from "./text-analyzer";
import { blank, confidenceOf, filtersOf, isLiteral, isSanitized, valueOf } from "./templates-expr";

export type Engine = "vue" | "svelte" | "ejs" | "handlebars" | "jinja" | "twig" | "thymeleaf" | "freemarker";

const check = textCheck;

const ESCAPED = "Output the value with the engine's escaping interpolation";
export const CHECKS = {
  vueHtml: check(
    "tpl-vue-v-html",
    "CWE-79",
    "Vue v-html renders a dynamic value as HTML",
    "HIGH",
    `${ESCAPED} ({{ value }}), or sanitize it first (v-html="DOMPurify.sanitize(value)").`,
  ),
  svelteHtml: check(
    "tpl-svelte-html",
    "CWE-79",
    "Svelte {@html} renders a dynamic value as HTML",
    "HIGH",
    `${ESCAPED} ({value}), or sanitize it first ({@html DOMPurify.sanitize(value)}).`,
  ),
  ejsUnescaped: check(
    "tpl-ejs-unescaped",
    "CWE-79",
    "EJS <%- %> writes a dynamic value without escaping",
    "HIGH",
    `${ESCAPED} (<%= value %>), or sanitize it first.`,
  ),
  ejsInclude: check(
    "tpl-ejs-dynamic-include",
    "CWE-98",
    "EJS include() of a template chosen at run time",
    "HIGH",
    "Include fixed template paths, or map the value to an allowlisted partial name.",
  ),
  handlebarsRaw: check(
    "tpl-handlebars-unescaped",
    "CWE-79",
    "Handlebars/Mustache {{{ }}} or {{& }} writes a dynamic value without escaping",
    "HIGH",
    `${ESCAPED} ({{ value }}), or sanitize it in a helper.`,
  ),
  jinjaSafe: check(
    "tpl-jinja-safe",
    "CWE-79",
    "Jinja/Django/Nunjucks |safe (or Twig |raw) marks a dynamic value as safe HTML",
    "HIGH",
    "Drop the |safe/|raw filter so the engine escapes the value, or sanitize it (bleach, nh3) before marking it safe.",
  ),
  jinjaAutoescapeOff: check(
    "tpl-jinja-autoescape-off",
    "CWE-79",
    "Dynamic value written inside an {% autoescape false/off %} block",
    "HIGH",
    "Keep autoescaping on, or escape the value explicitly (|e / |escape) inside the block.",
  ),
  thymeleafUtext: check(
    "tpl-thymeleaf-utext",
    "CWE-79",
    "Thymeleaf th:utext or [( )] writes a dynamic value without escaping",
    "HIGH",
    "Use th:text or [[ ]] so Thymeleaf escapes the value, or sanitize it before it reaches the model.",
  ),
  freemarkerNoEsc: check(
    "tpl-freemarker-no-esc",
    "CWE-79",
    "FreeMarker ?no_esc or <#noautoesc> writes a dynamic value without escaping",
    "HIGH",
    "Let the output format escape the value (drop ?no_esc / <#noautoesc>), or sanitize it first.",
  ),
  attrContext: check(
    "tpl-unsafe-attribute-context",
    "CWE-79",
    "Dynamic value in an event-handler attribute or at the start of a URL attribute",
    "HIGH",
    "HTML escaping does not protect event handlers or javascript: URLs: bind data attributes and read them from script, " +
      "and allow only http(s) or relative URLs (check the scheme) in href/action.",
  ),
} as const;

/** The engine of a file, from its extension and (for .html) its syntax; null if it is plain markup. */
export function engineOf(file: string, text: string): Engine[] {
  const ext = (/\.[^./]+$/.exec(file.toLowerCase())?.[0] ?? "").slice(1);
  if (ext === "vue") return ["vue"];
  if (ext === "svelte") return ["svelte"];
  if (ext === "ejs") return ["ejs"];
  if (["hbs", "handlebars", "mustache"].includes(ext)) return ["handlebars"];
  if (["jinja", "jinja2", "j2", "njk", "nunjucks"].includes(ext)) return ["jinja"];
  if (ext === "twig") return ["twig"];
  if (ext === "ftl" || ext === "ftlh") return ["freemarker"];
  if (ext !== "html" && ext !== "htm") return [];
  const engines: Engine[] = [];
  if (/\s(?:data-)?th:[\w-]+\s*=/.test(text)) engines.push("thymeleaf");
  if (/\{%[\s\S]*?%\}/.test(text) || /\{\{[\s\S]*?\|\s*safe\b[\s\S]*?\}\}/.test(text)) engines.push("jinja");
  if (/\sv-html\s*=/.test(text)) engines.push("vue");
  return engines;
}

type Push = (check: TextCheck, offset: number, expr: string, confidence?: Level) => void;

/** Every hit in one template's text. */
export function checkTemplate(file: string, text: string): TextHit[] {
  const hits: TextHit[] = [];
  const push: Push = (c, offset, expr, confidence) =>
    hits.push({ check: c, offset, confidence: confidence ?? confidenceOf(expr), text: expr.trim() });
  for (const engine of engineOf(file, text)) ENGINE_CHECKS[engine](text, push, file);
  return hits.sort((a, b) => a.offset - b.offset);
}

const ENGINE_CHECKS: Record<Engine, (text: string, push: Push, file: string) => void> = {
  vue: (text, push) => checkVue(blank(text, /<!--[\s\S]*?-->/g), push),
  svelte: (text, push) => checkSvelte(blank(text, /<!--[\s\S]*?-->/g), push),
  ejs: (text, push) => checkEjs(blank(text, /<%#[\s\S]*?%>/g), push),
  handlebars: (text, push) =>
    checkHandlebars(blank(text, /\{\{!--[\s\S]*?--\}\}|\{\{![\s\S]*?\}\}|\{\{\{\{(\w+)\}\}\}\}[\s\S]*?\{\{\{\{\/\1\}\}\}\}/g), push),
  jinja: (text, push) => checkJinja(blank(text, /\{#[\s\S]*?#\}/g), push, ["safe"]),
  twig: (text, push) => checkJinja(blank(text, /\{#[\s\S]*?#\}/g), push, ["raw", "safe"]),
  thymeleaf: (text, push) => checkThymeleaf(blank(text, /<!--[\s\S]*?-->/g), push),
  freemarker: (text, push) => checkFreemarker(blank(text, /<#--[\s\S]*?-->/g), push),
};

const dynamic = (expr: string): boolean => expr.trim() !== "" && !isLiteral(expr) && !isSanitized(expr);

function checkVue(text: string, push: Push): void {
  const re = /(?<=[\s<])(?:v-html|(?:v-bind)?:inner-?html)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;
  for (const m of text.matchAll(re)) {
    const expr = m[1] ?? m[2] ?? "";
    if (dynamic(expr)) push(CHECKS.vueHtml, m.index, expr);
  }
  // Bound URLs: Vue does not filter javascript: URLs, so request data there is reported.
  const url = /(?<=\s)(?:v-bind:|:)(?:href|action|formaction)\s*=\s*"([^"]*)"/gi;
  for (const m of text.matchAll(url)) {
    const expr = m[1] ?? "";
    if (dynamic(expr) && (confidenceOf(expr) === "HIGH" || /^\s*['`]javascript:/i.test(expr)))
      push(CHECKS.attrContext, m.index, expr, "MEDIUM");
  }
}

function checkSvelte(text: string, push: Push): void {
  for (const m of text.matchAll(/\{@html\s+((?:[^{}]|\{[^{}]*\})*)\}/g)) {
    const expr = m[1] ?? "";
    if (dynamic(expr)) push(CHECKS.svelteHtml, m.index, expr);
  }
}

/** Layout slots: the page a layout wraps is rendered HTML by design (express-ejs-layouts, express-handlebars). */
const LAYOUT_SLOT =
  /^\s*(?:body|yield|outlet|contentFor\s*\(.*\)|defineContent\s*\(.*\)|block\s*\(.*\)|(?:block|partial|content|embed)\s+.*)\s*$/s;

function checkEjs(text: string, push: Push): void {
  for (const m of text.matchAll(/<%-([\s\S]*?)[-_]?%>/g)) {
    const expr = m[1] ?? "";
    const include = /^\s*include\s*\(([\s\S]*)\)\s*;?\s*$/.exec(expr);
    if (include) {
      const path = /^\s*(?:'[^'$]*'|"[^"$]*"|`[^`$]*`)\s*(?:,|$)/.test(include[1] ?? "");
      if (!path) push(CHECKS.ejsInclude, m.index, expr);
      continue;
    }
    if (dynamic(expr) && !LAYOUT_SLOT.test(expr)) push(CHECKS.ejsUnescaped, m.index, expr);
  }
  checkAttributes(text, /<%=([\s\S]*?)[-_]?%>/g, push);
}

function checkHandlebars(text: string, push: Push): void {
  for (const m of text.matchAll(/(?<!\{)\{\{\{(?!\{)\s*([^{}]*?)\s*\}\}\}|\{\{&\s*([^{}]*?)\s*\}\}/g)) {
    const expr = m[1] ?? m[2] ?? "";
    if (dynamic(expr) && !LAYOUT_SLOT.test(expr) && !/^[#/>^!]/.test(expr)) push(CHECKS.handlebarsRaw, m.index, expr);
  }
  checkAttributes(text, /(?<!\{)\{\{(?![{#/>^!&])([^{}]*?)\}\}(?!\})/g, push);
}

function checkJinja(text: string, push: Push, unsafeFilters: string[]): void {
  const offBlocks = autoescapeOffBlocks(text);
  for (const m of text.matchAll(/\{\{-?([\s\S]*?)-?\}\}/g)) {
    const expr = m[1] ?? "";
    const value = valueOf(expr);
    if (value.trim() === "" || isLiteral(value) || isSanitized(expr)) continue;
    if (filtersOf(expr).some((f) => unsafeFilters.includes(f))) push(CHECKS.jinjaSafe, m.index, expr);
    else if (offBlocks.some(([s, e]) => m.index > s && m.index < e)) push(CHECKS.jinjaAutoescapeOff, m.index, expr);
  }
  // Attribute contexts only in files with Jinja statements: {{ }} alone may be Angular or Vue.
  if (/\{%[\s\S]*?%\}/.test(text)) checkAttributes(text, /\{\{-?([\s\S]*?)-?\}\}/g, push);
}

/** [start, end) of each {% autoescape false %} / {% autoescape off %} block. */
function autoescapeOffBlocks(text: string): [number, number][] {
  const blocks: [number, number][] = [];
  const re = /\{%-?\s*(autoescape\s+["']?(false|off|true|on)["']?|endautoescape)\s*-?%\}/gi;
  const stack: { off: boolean; start: number }[] = [];
  for (const m of text.matchAll(re)) {
    if (m[1]?.toLowerCase() === "endautoescape") {
      const open = stack.pop();
      if (open?.off) blocks.push([open.start, m.index]);
    } else stack.push({ off: /false|off/i.test(m[2] ?? ""), start: m.index });
  }
  for (const open of stack) if (open.off) blocks.push([open.start, text.length]);
  return blocks;
}

/** Thymeleaf expressions that are dynamic: ${…} or *{…} (not message keys #{…} or links @{…} alone). */
const thymeleafDynamic = (expr: string): boolean => /[$*]\{/.test(expr) && !isSanitized(expr);

function checkThymeleaf(text: string, push: Push): void {
  for (const m of text.matchAll(/(?<=\s)(?:data-)?th:utext\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    const expr = m[1] ?? m[2] ?? "";
    if (thymeleafDynamic(expr)) push(CHECKS.thymeleafUtext, m.index, expr);
  }
  for (const m of text.matchAll(/\[\(([\s\S]*?)\)\]/g)) {
    const expr = m[1] ?? "";
    if (thymeleafDynamic(expr)) push(CHECKS.thymeleafUtext, m.index, expr);
  }
}

function checkFreemarker(text: string, push: Push): void {
  const free = (expr: string): boolean => !/\?(?:esc|html|xhtml|xml|js_string|url)\b/.test(expr) && !isLiteral(expr);
  for (const m of text.matchAll(/\$\{([^{}]*?\?no_esc\b[^{}]*)\}/g)) {
    const expr = m[1] ?? "";
    if (free(expr.replace(/\?no_esc\b/, ""))) push(CHECKS.freemarkerNoEsc, m.index, expr);
  }
  for (const block of text.matchAll(/<#noautoesc\s*>([\s\S]*?)(?:<\/#noautoesc\s*>|$)/g)) {
    const start = block.index + block[0].indexOf(">") + 1;
    for (const m of (block[1] ?? "").matchAll(/\$\{([^{}]*)\}/g)) {
      const expr = m[1] ?? "";
      if (!/\?no_esc\b/.test(expr) && free(expr)) push(CHECKS.freemarkerNoEsc, start + m.index, expr);
    }
  }
}

/** Values that build URLs on the server: never a javascript: URL. */
const URL_BUILDER =
  /^\s*(?:url_for|url|static|asset|path|route|reverse|uri|link_to|\w+_url|\w+_path)\s*\(|^\s*\w+\s*\.\s*get_absolute_url\b/;
const URL_ATTR = /^(?:href|action|formaction|xlink:href)$/i;
/** The request's own location (a path or http URL, never javascript:). */
const OWN_URL = /\brequest\s*\.\s*(?:path|uri|url|full_path|path_info|base_url|host_url|url_root|build_absolute_uri)\b/;
/** Names of values a user or the request chooses as a link target. */
const USER_URL = /\b(?:website|homepage|home_page|redirect\w*|next|return_?to|return_?url|returnTo|returnUrl|callback\w*|target_?url)\b/i;

/** A value at the start of a URL attribute: reported when a user or the request chooses it. */
const userChosenUrl = (expr: string): boolean => !OWN_URL.test(expr) && (confidenceOf(expr) === "HIGH" || USER_URL.test(valueOf(expr)));

/** Interpolations (matched by `interp`, group 1 the expression) in handler and URL attributes. */
function checkAttributes(text: string, interp: RegExp, push: Push): void {
  const attrs = /(?<=[\s"'])(on[a-z]+|href|action|formaction|xlink:href)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;
  for (const a of text.matchAll(attrs)) {
    const name = a[1] ?? "";
    const value = a[2] ?? a[3] ?? "";
    const valueStart = a.index + a[0].length - value.length - 1;
    for (const m of value.matchAll(interp)) {
      const expr = m[1] ?? "";
      if (!dynamic(expr) || URL_BUILDER.test(expr)) continue;
      const atStart = value.slice(0, m.index).trim() === "";
      const scriptUrl = /^\s*javascript:/i.test(value);
      if (URL_ATTR.test(name) && !scriptUrl && !(atStart && userChosenUrl(expr))) continue;
      push(CHECKS.attrContext, valueStart + m.index, expr, "MEDIUM");
      break;
    }
  }
}
