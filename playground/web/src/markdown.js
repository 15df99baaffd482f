// Markdown for hovers and completion docs, as the toolchain writes it:
// paragraphs, fenced code blocks, "- " lists, **bold**, `code` and
// [links](url). It builds DOM nodes; no text becomes HTML.

function inline(parent, text) {
  const re = /(\*\*([^*]+)\*\*)|(`([^`]+)`)|(\[([^\]]+)\]\(([^)\s]+)\))/g;
  let last = 0;
  for (let m; (m = re.exec(text)); ) {
    if (m.index > last) {
      parent.append(text.slice(last, m.index));
    }
    if (m[1]) {
      const b = document.createElement("strong");
      inline(b, m[2]);
      parent.append(b);
    } else if (m[3]) {
      const c = document.createElement("code");
      c.textContent = m[4];
      parent.append(c);
    } else {
      const a = document.createElement("a");
      a.textContent = m[6];
      if (/^https?:\/\//.test(m[7])) {
        a.href = m[7];
        a.target = "_blank";
        a.rel = "noopener noreferrer";
      }
      parent.append(a);
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) {
    parent.append(text.slice(last));
  }
}

/** Renders Markdown into a new element. */
export function renderMarkdown(md) {
  const root = document.createElement("div");
  root.className = "md";
  const lines = md.split("\n");
  let para = [];
  let list = null;
  const flush = () => {
    if (para.length) {
      const p = document.createElement("p");
      inline(p, para.join(" "));
      root.append(p);
      para = [];
    }
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith("```")) {
      flush();
      const pre = document.createElement("pre");
      const body = [];
      for (i++; i < lines.length && !lines[i].startsWith("```"); i++) {
        body.push(lines[i]);
      }
      pre.textContent = body.join("\n");
      root.append(pre);
    } else if (line.startsWith("- ")) {
      if (para.length) {
        flush();
      }
      if (!list) {
        list = document.createElement("ul");
        root.append(list);
      }
      const li = document.createElement("li");
      inline(li, line.slice(2));
      list.append(li);
    } else if (line.trim() === "") {
      flush();
    } else {
      list = null;
      para.push(line);
    }
  }
  flush();
  return root;
}
