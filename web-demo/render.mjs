// How the page shows what it receives: model text as markdown, JSON as a readable tree, token
// usage as a table. Model output never becomes live HTML: marked turns the markdown into HTML
// in which raw HTML from the model is escaped to text and images become plain links, and
// DOMPurify then keeps only formatting elements, no attributes but link targets, and links only
// to http(s) and mailto addresses.
import { Marked } from "/vendor/marked.mjs";
import DOMPurify from "/vendor/purify.mjs";

/** An element with a class and text (never HTML). */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text != null) node.textContent = text;
  return node;
}

const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const marked = new Marked({
  gfm: true,
  renderer: {
    html: ({ text }) => escapeHtml(text),
    image: ({ href, text }) => `<a href="${escapeHtml(href)}">image: ${escapeHtml(text || href)}</a>`,
  },
});

const PURIFY = {
  ALLOWED_TAGS: ["p", "br", "hr", "strong", "em", "del", "code", "pre", "blockquote", "ul", "ol", "li",
    "h1", "h2", "h3", "h4", "h5", "h6", "a", "table", "thead", "tbody", "tr", "th", "td"],
  ALLOWED_ATTR: ["href", "title", "start"],
  ALLOW_DATA_ATTR: false,
  RETURN_DOM_FRAGMENT: true,
};
const SAFE_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    let url;
    try { url = new URL(node.getAttribute("href") ?? ""); } catch { url = undefined; }
    if (url && SAFE_PROTOCOLS.has(url.protocol)) {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer nofollow");
    } else {
      node.removeAttribute("href");
    }
  }
});

/** Renders `markdown` into `target`, replacing what it held. */
export function renderMarkdown(target, markdown) {
  target.replaceChildren(DOMPurify.sanitize(marked.parse(markdown), PURIFY));
}

// ---- JSON -----------------------------------------------------------------------------------

/** Strings longer than this with no space in them (signatures, encrypted state, base64) fold. */
const FOLD_AT = 96;
/** Keys whose string value is JSON text (tool arguments), shown parsed. */
const JSON_TEXT_KEYS = new Set(["arguments"]);

/**
 * A read-only tree of `value`: keys, strings, numbers in their own colours; opaque long strings
 * folded behind their length; tool arguments (JSON text) shown as the JSON they hold.
 */
export function jsonView(value) {
  const root = el("div", "json");
  root.append(node(value, undefined));
  return root;
}

function node(value, key) {
  if (value === null || typeof value !== "object") return scalar(value, key);
  const isArray = Array.isArray(value);
  const entries = isArray ? value.map((v, i) => [i, v]) : Object.entries(value);
  const [open, close] = isArray ? ["[", "]"] : ["{", "}"];
  if (!entries.length) return el("span", "p", open + close);
  const box = el("span", "obj");
  box.append(el("span", "p", open));
  const list = el("span", "members");
  for (const [k, v] of entries) {
    const row = el("span", "row");
    if (!isArray) row.append(el("span", "k", JSON.stringify(k)), el("span", "p", ": "));
    row.append(node(v, k));
    list.append(row);
  }
  box.append(list, el("span", "p", close));
  return box;
}

function scalar(value, key) {
  if (typeof value !== "string") return el("span", value === null ? "n" : typeof value === "number" ? "num" : "b", String(value));
  const parsed = JSON_TEXT_KEYS.has(key) ? parseObject(value) : undefined;
  if (parsed !== undefined) {
    const box = el("span", "json-text");
    box.append(el("span", "tag", "JSON text"), node(parsed, undefined));
    return box;
  }
  if (value.length > FOLD_AT && !/\s/.test(value)) {
    const fold = el("details", "fold");
    const summary = el("summary", null);
    summary.append(el("span", "s", `"${value.slice(0, 16)}…"`), el("span", "len", `${value.length.toLocaleString("en")} characters`));
    fold.append(summary, el("span", "s full", JSON.stringify(value)));
    return fold;
  }
  return el("span", "s", JSON.stringify(value));
}

/** `text` parsed when it is a JSON object or array, else undefined. */
function parseObject(text) {
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `text` formatted as indented JSON when it parses, else as it is. */
export function prettyJson(text) {
  try {
    return JSON.stringify(text.trim() ? JSON.parse(text) : {}, null, 2);
  } catch {
    return text;
  }
}

// ---- usage ----------------------------------------------------------------------------------

const USAGE_COLUMNS = [
  ["inputTokens", "Input"], ["cacheReadTokens", "Cached"], ["cacheWriteTokens", "Cache write"],
  ["outputTokens", "Output"], ["reasoningTokens", "Reasoning"], ["totalTokens", "Total"],
];

/** A one-row table of a usage's token counts (the columns it has). */
export function usageTable(usage) {
  const columns = USAGE_COLUMNS.filter(([key]) => typeof usage[key] === "number");
  const table = el("table", "usage");
  table.append(el("caption", "sr-only", "Token usage"));
  const head = table.createTHead().insertRow();
  const row = table.createTBody().insertRow();
  for (const [key, label] of columns) {
    const th = el("th", null, label);
    th.scope = "col";
    head.append(th);
    row.insertCell().textContent = usage[key].toLocaleString("en");
  }
  return table;
}
