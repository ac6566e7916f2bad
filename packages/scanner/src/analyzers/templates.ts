/**
 * The templates analyzer: view templates of engines other than JSP (Vue and Svelte components,
 * EJS, Handlebars/Mustache, Jinja2/Django/Nunjucks, Twig, Thymeleaf, FreeMarker) read
 * in-process. It reports, by line, the constructs that switch the engine's auto-escaping off
 * on a dynamic value, EJS includes of a non-literal path, and interpolations in event-handler
 * and URL attributes, where HTML escaping does not help. See templates-checks.ts.
 */
import type { NormalizedFinding } from "@ax/contracts";
import type { Taxonomy } from "./taxonomy";
import { checkTemplate } from "./templates-checks";
import { scanText, textAnalyzer, type TextAnalyzerSpec } from "./text-analyzer";
import type { Analyzer } from "./types";

export const TEMPLATES_ANALYZER = "templates";
/** Bump when checks change: part of the cache key. */
export const TEMPLATES_ANALYZER_VERSION = "2";

/** Third-party and built copies: findings there are not the project's to fix. */
const SKIPPED_PATH = /(?:^|\/)(?:node_modules|bower_components|vendor|dist|build|public\/assets)\/|\.min\.\w+$/;

/** One huge line or very long lines on average: a minified build output. */
function minified(text: string): boolean {
  const lines = text.split("\n");
  return text.length > 5000 && text.length / lines.length > 400;
}

const TEMPLATES: TextAnalyzerSpec = {
  name: TEMPLATES_ANALYZER,
  version: TEMPLATES_ANALYZER_VERSION,
  language: "template",
  maxBytes: 1024 * 1024,
  skipPath: (file) => SKIPPED_PATH.test(file),
  skipText: minified,
  check: checkTemplate,
};

export function templatesAnalyzer(): Analyzer {
  return textAnalyzer(TEMPLATES);
}

/** The findings of one template's text (one per check and line). Exported for tests. */
export function scanTemplateText(file: string, text: string, taxonomy: Taxonomy): NormalizedFinding[] {
  return scanText(TEMPLATES, file, text, taxonomy);
}
