/** Comments out of code: what a comment says is never evidence (it can name the verdict). */

/** Code with comments removed (C/Java/JS-style and `#` lines for script languages). */
export function stripComments(code: string, file = ""): string {
  const hashComments = /\.(py|pyw|rb|sh|bash|pl|ya?ml|r)$/i.test(file) || /^#!/.test(code);
  let out = "";
  for (let i = 0; i < code.length; i++) {
    const c = code[i] as string;
    if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      for (; j < code.length && code[j] !== c && code[j] !== "\n"; j++) if (code[j] === "\\") j++;
      out += code.slice(i, j + 1);
      i = j;
    } else if (c === "/" && code[i + 1] === "/") {
      while (i < code.length && code[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && code[i + 1] === "*") {
      const end = code.indexOf("*/", i + 2);
      const comment = code.slice(i, end < 0 ? code.length : end + 2);
      out += "\n".repeat((comment.match(/\n/g) ?? []).length);
      i = end < 0 ? code.length : end + 1;
    } else if (c === "#" && hashComments) {
      while (i < code.length && code[i] !== "\n") i++;
      out += "\n";
    } else out += c;
  }
  return out;
}
