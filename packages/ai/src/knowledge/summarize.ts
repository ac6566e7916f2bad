/**
 * Short extracts of the catalogue's long prose for chat answers: whole sentences from the
 * start, so an extract never begins with "This" pointing at a sentence that was left out.
 */

// A period ends a sentence unless it belongs to "e.g." or "i.e."; the next one starts
// with a capital, a digit, a quote or a parenthesis.
const SENTENCE_END = /(?<!\b(?:e\.g|i\.e|etc|vs)\.)(?<=[.!?])\s+(?=["'(\dA-Z])/;

export function sentences(text: string): string[] {
  return text
    .split(SENTENCE_END)
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/**
 * The leading sentences of `text` that fit in `max` characters; a first sentence longer
 * than that is cut at a word, with an ellipsis.
 */
export function summarize(text: string, max: number): string {
  const all = sentences(text);
  const first = all[0];
  if (first === undefined) return "";
  if (first.length > max) return `${first.slice(0, max - 1).replace(/\s+\S*$/, "")}…`;
  let out = first;
  for (const s of all.slice(1)) {
    if (out.length + 1 + s.length > max) break;
    out += ` ${s}`;
  }
  return out;
}
