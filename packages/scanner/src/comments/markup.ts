/**
 * Comments of markup files: `<!-- -->` in the text, JSP's `<%-- --%>` and ERB's `<%# %>`, and
 * the code embedded in them, lexed with its own language: `<script>` (JavaScript), `<style>`
 * (CSS), JSP scriptlets (Java), ERB tags (Ruby) and PHP's `<?php … ?>`. Tags are skipped with
 * their quoted attributes, so `title="<!-- x -->"` is no comment.
 */
import { lexComments, type Span } from "./lexer";
import { CSS, JAVA, JAVASCRIPT, PHP, RUBY } from "./syntaxes";

export type Markup = "html" | "jsp" | "erb" | "php";

export function markupComments(text: string, kind: Markup): Span[] {
  const out: Span[] = [];
  const n = text.length;
  const block = (i: number, open: string, close: string) => {
    const at = text.indexOf(close, i + open.length);
    const end = at === -1 ? n : at + close.length;
    out.push({ start: i, end });
    return end;
  };
  let i = 0;
  while (i < n) {
    i = text.indexOf("<", i);
    if (i === -1) break;
    if (text.startsWith("<!--", i)) i = block(i, "<!--", "-->");
    else if (kind === "jsp" && text.startsWith("<%--", i)) i = block(i, "<%--", "--%>");
    else if (kind === "erb" && text.startsWith("<%#", i)) i = block(i, "<%#", "%>");
    else if (kind === "php" && text.startsWith("<?", i) && !/^<\?xml\b/i.test(text.slice(i, i + 6))) {
      const open = /^<\?(php\b|=)?/i.exec(text.slice(i, i + 5))?.[0] ?? "<?";
      const { comments, end } = lexComments(text, PHP, i + open.length, n);
      out.push(...comments);
      i = end + 2;
    } else if ((kind === "jsp" || kind === "erb") && text.startsWith("<%", i)) {
      // The tag ends at the first `%>` whatever the code says (JSP: `%\>` inside it).
      const at = text.indexOf("%>", i + 2);
      const end = at === -1 ? n : at;
      out.push(...lexComments(text, kind === "jsp" ? JAVA : RUBY, i + 2, end).comments);
      i = end + 2;
    } else {
      const embedded = /^<(script|style)[\s>/]/i.exec(text.slice(i, i + 8));
      if (!/^<[A-Za-z/!?]/.test(text.slice(i, i + 2))) {
        i++;
        continue;
      }
      const tagEnd = skipTag(text, i);
      if (embedded?.[1] && text[tagEnd - 2] !== "/") {
        // Script and style content ends at the first closing tag, as an HTML parser reads it.
        const close = new RegExp(`</${embedded[1]}`, "ig");
        close.lastIndex = tagEnd;
        const end = close.exec(text)?.index ?? n;
        out.push(...lexComments(text, embedded[1].toLowerCase() === "script" ? JAVASCRIPT : CSS, tagEnd, end).comments);
        i = end;
      } else i = tagEnd;
    }
  }
  return out;
}

/** Past the `>` that ends the tag starting at `i`, skipping quoted attribute values. */
function skipTag(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (c === ">") return j + 1;
    if (c === '"' || c === "'") {
      const close = text.indexOf(c, j + 1);
      if (close === -1) return text.length;
      j = close;
    }
  }
  return text.length;
}
