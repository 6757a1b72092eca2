"use strict";
// loomtui export-html: the sidebar (rows serialised by loomtui at export) and the main pane
// (entries pre-rendered at export, gzip + base64, decoded on demand). Nothing here renders
// Markdown or touches text from the session except through textContent.
(function () {
  const ROW_H = 20;
  const PAGE = 30;
  const $ = (id) => document.getElementById(id);
  const FOLDABLE = 1, CONNECTOR = 2;

  function b64bytes(s) {
    if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(s);
    const bin = atob(s);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  async function inflate(id) {
    const el = $(id);
    const bytes = b64bytes(el.textContent.trim());
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return await new Response(stream).text();
  }

  let D = null;            // sidebar data
  let N = 0;               // entries
  let END = null, PARENT = null, NEWEST = null;
  let mode = "default";
  let query = "";
  let folded = new Set();  // flat positions
  let rows = null;         // {pos: Int32Array|Array, pre: Array<string>, flags: Array<number>} of the filter/search
  let view = [];           // indices into rows after folding
  let activeMark = null;   // Uint8Array: on the path root → current leaf
  let curLeaf = -1, curTarget = -1, cursor = 0;
  const labelsLower = new Map();
  const chunkCache = new Map();
  const BY_ID = new Map();

  // the search texts come in their own blob, read after the first rows are painted
  let searchLoad = null;
  function searchTexts() {
    if (!searchLoad) searchLoad = inflate("d-find").then((t) => {
      const s = JSON.parse(t);
      for (let p = 0; p < s.length; p++) if (s[p] === 0) s[p] = rowSearchText(D.segs[p]);
      D.search = s;
    });
    return searchLoad;
  }

  // the search text most messages have, from the row's text ("user: hi" → "user hi"); the
  // export writes 0 where this gives exactly its search text (export_html._row_search_text)
  function rowSearchText(seg) {
    let first = seg.length > 1 ? seg[1] : "";
    if (first.endsWith(": ")) first = first.slice(0, -2) + " ";
    let s = first;
    for (let i = 3; i < seg.length; i += 2) s += seg[i];
    return s.toLowerCase();
  }

  // ---------------------------------------------------------------- sidebar rows
  function filterRows(m) {
    const f = D.filters[m];
    return { pos: f.pos, pre: f.pre.map((k) => D.prefixes[k]), flags: f.flags };
  }

  // pi's search: every whitespace-separated word (lower case) in the entry's text or its label
  function searchRows(m, q) {
    const tokens = q.toLowerCase().split(/\s+/).filter((t) => t.length);
    const cand = D.filters[m].pos;
    const hit = [];
    for (let i = 0; i < cand.length; i++) {
      const p = cand[i];
      const s = D.search[p];
      const lab = labelsLower.get(p);
      let ok = true;
      for (const t of tokens) {
        if (!(s.includes(t) || (lab !== undefined && lab.includes(t)))) { ok = false; break; }
      }
      if (ok) hit.push(p);
    }
    return layoutRows(hit);
  }

  // loomtui's layout rule (view/layout.py `layout` and `prefix`) over visible flat positions
  function layoutRows(positions) {
    const n = positions.length;
    const parent = new Int32Array(n), kids = new Int32Array(n), last = new Uint8Array(n);
    const lastChild = new Int32Array(n).fill(-1);
    const stack = [];
    let roots = 0, lastRoot = -1;
    for (let i = 0; i < n; i++) {
      const p = positions[i];
      while (stack.length && END[positions[stack[stack.length - 1]]] <= p) stack.pop();
      const q = stack.length ? stack[stack.length - 1] : -1;
      parent[i] = q;
      if (q < 0) {
        roots++;
        if (lastRoot >= 0) last[lastRoot] = 0;
        lastRoot = i; last[i] = 1;
      } else {
        kids[q]++;
        if (lastChild[q] >= 0) last[lastChild[q]] = 0;
        last[i] = 1; lastChild[q] = i;
      }
      stack.push(i);
    }
    const multiple = roots > 1;
    const indent = new Int32Array(n), conn = new Uint8Array(n), vrc = new Uint8Array(n);
    const gut = new Array(n).fill(null);
    for (let i = 0; i < n; i++) {
      const q = parent[i];
      if (q < 0) {
        indent[i] = multiple ? 1 : 0;
        if (multiple) { conn[i] = 1; vrc[i] = 1; }
        continue;
      }
      const pind = indent[q];
      if (kids[q] > 1) { indent[i] = pind + 1; conn[i] = 1; }
      else if (pind && conn[q]) indent[i] = pind + 1;
      else indent[i] = pind;
      let g = gut[q];
      if (conn[q] && !vrc[q]) {
        const d = multiple && pind > 0 ? pind - 1 : pind;
        g = [g, d > 0 ? d - 1 : 0, !last[q]];
      }
      gut[i] = g;
    }
    const pre = new Array(n), flags = new Array(n);
    for (let i = 0; i < n; i++) {
      const foldable = kids[i] > 0 && (parent[i] < 0 || kids[parent[i]] > 1);
      const shows = conn[i] && !vrc[i];
      flags[i] = (foldable ? FOLDABLE : 0) | (shows ? CONNECTOR : 0);
      const d = multiple ? Math.max(0, indent[i] - 1) : indent[i];
      if (d === 0) { pre[i] = ""; continue; }
      const glyph = shows ? (last[i] ? "└" : "├") + (foldable ? "⊟" : "─") + " " : "";
      const first = new Map();
      let chain = gut[i];
      while (chain) { first.set(chain[1], chain[2]); chain = chain[0]; }
      let s = "";
      const cpos = shows ? d - 1 : -1;
      for (let level = 0; level < d; level++) {
        const shown = first.get(level);
        if (shown !== undefined) s += shown ? "│  " : "   ";
        else if (level === cpos) s += glyph;
        else s += "   ";
      }
      pre[i] = s;
    }
    return { pos: positions, pre, flags };
  }

  function recompute(keepPos) {
    rows = query.trim() ? searchRows(mode, query) : filterRows(mode);
    applyFolds();
    const at = keepPos >= 0 ? nearestVisible(keepPos) : -1;
    cursor = at >= 0 ? at : Math.max(0, view.length - 1);
    $("count").textContent = `${view.length} / ${N} entries`;
    $("rows-space").style.height = view.length * ROW_H + "px";
    paintRows(true);
  }

  function applyFolds() {
    view = [];
    const pos = rows.pos;
    let skipEnd = -1;
    for (let i = 0; i < pos.length; i++) {
      const p = pos[i];
      if (p < skipEnd) continue;
      view.push(i);
      if (folded.has(p)) skipEnd = END[p];
    }
  }

  function nearestVisible(p) {
    const where = new Map();
    for (let k = 0; k < view.length; k++) where.set(rows.pos[view[k]], k);
    let cur = p;
    while (cur >= 0) {
      const k = where.get(cur);
      if (k !== undefined) return k;
      cur = PARENT[cur];
    }
    return -1;
  }

  function rowText(k) {
    const i = view[k];
    const p = rows.pos[i];
    let pre = rows.pre[i];
    let mark = "";
    if (folded.has(p)) {
      if (rows.flags[i] & CONNECTOR) { if (pre.length >= 2) pre = pre.slice(0, -2) + "⊞ "; }
      else mark = "⊞ ";
    }
    return { p, pre, mark, flags: rows.flags[i] };
  }

  function paintRows(force) {
    const box = $("rows");
    const space = $("rows-space");
    const top = box.scrollTop;
    const first = Math.max(0, Math.floor(top / ROW_H) - 10);
    const lastRow = Math.min(view.length, Math.ceil((top + box.clientHeight) / ROW_H) + 10);
    const key = first + ":" + lastRow;
    if (!force && space.dataset.win === key) return;
    space.dataset.win = key;
    const frag = document.createDocumentFragment();
    for (let k = first; k < lastRow; k++) {
      const { p, pre, mark, flags } = rowText(k);
      const div = document.createElement("div");
      div.className = "row";
      if (k === cursor) div.classList.add("sel");
      if (activeMark[p]) div.classList.add("path");
      div.style.top = k * ROW_H + "px";
      div.dataset.k = k;
      div.dataset.id = D.ids[p];
      if (pre) {
        const g = document.createElement("span");
        g.className = "g s5" + (flags & FOLDABLE ? " fold" : "");
        g.textContent = pre;
        div.appendChild(g);
      }
      let head = mark;
      if (activeMark[p]) head += "• ";
      if (head) {
        const m = document.createElement("span");
        m.className = "s1" + (mark ? " g fold" : "");
        m.textContent = head;
        div.appendChild(m);
      }
      const lab = D.labels[p];
      if (lab !== undefined) {
        const l = document.createElement("span");
        l.className = "s6";
        l.textContent = "[" + lab + "] ";
        div.appendChild(l);
      }
      const seg = D.segs[p];
      for (let j = 0; j < seg.length; j += 2) {
        const s = document.createElement("span");
        s.className = "s" + seg[j];
        s.textContent = seg[j + 1];
        div.appendChild(s);
      }
      frag.appendChild(div);
    }
    space.replaceChildren(frag);
  }

  function toggleFold(k, want) {
    const i = view[k];
    if (i === undefined) return false;
    const p = rows.pos[i];
    const isFolded = folded.has(p);
    if (isFolded && want !== true) folded.delete(p);
    else if (!isFolded && want !== false && (rows.flags[i] & FOLDABLE)) folded.add(p);
    else return false;
    applyFolds();
    cursor = nearestVisible(p);
    $("count").textContent = `${view.length} / ${N} entries`;
    $("rows-space").style.height = view.length * ROW_H + "px";
    paintRows(true);
    return true;
  }

  function scrollRowIntoView(k) {
    const box = $("rows");
    const y = k * ROW_H;
    if (y < box.scrollTop) box.scrollTop = y;
    else if (y + ROW_H > box.scrollTop + box.clientHeight) box.scrollTop = y + ROW_H - box.clientHeight;
  }

  // ---------------------------------------------------------------- main pane
  // a chunk holds, per record, the session file's line and then, on the next line, its
  // rendered part as JSON [html, inFile, kind, head]; a record here is [line, html, inFile, kind, head]
  function chunk(k) {
    let c = chunkCache.get(k);
    if (!c) {
      c = inflate("d-c" + k).then((t) => {
        const parts = t.split("\n");
        const recs = [];
        for (let i = 0; i + 1 < parts.length; i += 2) recs.push([parts[i], ...JSON.parse(parts[i + 1])]);
        return recs;
      });
      chunkCache.set(k, c);
    }
    return c;
  }
  async function entryRecord(p) {
    const loc = D.loc[p];
    const recs = await chunk(Math.floor(loc / D.chunkSize));
    return recs[loc % D.chunkSize];
  }

  function pathTo(p) {
    const out = [];
    const seen = new Set();
    for (let cur = p; cur >= 0 && !seen.has(cur); cur = PARENT[cur]) { seen.add(cur); out.push(cur); }
    return out.reverse();
  }

  let branch = [], winLo = 0, winHi = 0, rendering = Promise.resolve(), navSeq = 0;

  function setActive(leaf) {
    activeMark = new Uint8Array(N);
    if (leaf >= 0 && D.marks_path) for (const p of pathTo(leaf)) activeMark[p] = 1;
  }

  function span(cls, text) {
    const s = document.createElement("span");
    if (cls) s.className = cls;
    s.textContent = text;
    return s;
  }

  // the entry's header line: what it is, its label, time, model and usage, a copy-link button
  function entryHead(p, head, time) {
    const h = document.createElement("div");
    h.className = "eh";
    h.appendChild(span("kind", head[0]));
    const lab = D.labels[p];
    if (lab !== undefined) h.appendChild(span("lab", "[" + lab + "]"));
    if (time) h.appendChild(span("", time));
    if (head[2]) h.appendChild(span("model", head[2]));
    if (head[3]) h.appendChild(span("usage", head[3]));
    h.appendChild(span("sp", ""));
    const b = document.createElement("button");
    b.className = "copy-link";
    b.title = "copy a link to this entry";
    b.textContent = "link";
    b.dataset.id = D.ids[p];
    h.appendChild(b);
    return h;
  }

  async function renderEntry(p) {
    const rec = await entryRecord(p);
    const div = document.createElement("div");
    div.className = "entry k-" + (rec[3] || "other");
    div.id = "e-" + D.ids[p];
    div.dataset.pos = p;
    const head = rec[4] || ["", "", "", ""];
    // a null time is the entry's own "timestamp", as its line has it
    div.appendChild(entryHead(p, head, head[1] === null ? await lineTimestamp(D.ids[p]) : head[1]));
    const body = document.createElement("div");
    body.className = "eb";
    body.innerHTML = rec[1] === null ? "" : rec[1];
    div.appendChild(body);
    // a tool result whose call (an ancestor) shows it: hidden here
    if (rec[1] === null) div.classList.add("absorbed");
    for (const pre of div.querySelectorAll("pre[data-out]")) pre.textContent = await outputText(pre.dataset.out);
    for (const pre of div.querySelectorAll("pre")) if (pre.textContent.includes("\x1b")) terminalText(pre);
    for (const t of div.querySelectorAll("[data-think]")) t.textContent = await thinkingText(t.dataset.think, Number(t.dataset.k));
    for (const d of div.querySelectorAll("div.md[data-md]")) {
      d.innerHTML = plainParagraphs(await plainText(d.dataset.md, Number(d.dataset.k)));
      delete d.dataset.md;
      delete d.dataset.k;
    }
    for (const img of div.querySelectorAll("img[data-img]")) {
      const src = await imageSource(img.dataset.img, Number(img.dataset.i));
      if (src) img.src = src;
    }
    return div;
  }

  // tool output written for a terminal: escape sequences dropped, OSC 8 hyperlinks kept as links
  // when they are http, https or mailto (as pi's export), the rest as plain text nodes
  const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\]([^\x07\x1b]*)(?:\x07|\x1b\\)|\x1b_[^\x07\x1b]*(?:\x07|\x1b\\)/g;
  const OSC8 = /^8;[^;]*;(.*)$/s;
  const LINK_OK = /^(?:https?:|mailto:)/i;
  function terminalText(pre) {
    const text = pre.textContent;
    const out = document.createDocumentFragment();
    let into = out, last = 0, m;
    const put = (t) => { t = t.replace(/\x1b/g, ""); if (t) into.appendChild(document.createTextNode(t)); };
    ESCAPES.lastIndex = 0;
    while ((m = ESCAPES.exec(text)) !== null) {
      put(text.slice(last, m.index));
      last = m.index + m[0].length;
      const link = m[1] !== undefined ? OSC8.exec(m[1]) : null;
      if (!link) continue;
      into = out;  // a hyperlink ends where the next one (or an empty one) starts
      const url = link[1].trim().replace(/[\x00-\x1f\x7f]/g, "");
      if (url && LINK_OK.test(url)) {
        const a = document.createElement("a");
        a.href = url;
        out.appendChild(a);
        into = a;
      }
    }
    put(text.slice(last));
    pre.replaceChildren(out);
  }

  // an inline image, from its entry's line (the record does not hold the data twice): a data:
  // URL only for the types the export shows inline and only from base64 text
  const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
  async function imageSource(id, i) {
    const msg = await message(id);
    const b = msg && Array.isArray(msg.content) ? msg.content[i] : null;
    const mime = b && (b.mimeType || b.mime_type);
    if (!b || b.type !== "image" || !IMAGE_TYPES.has(mime) || typeof b.data !== "string") return "";
    if (!/^[A-Za-z0-9+/=\s]*$/.test(b.data)) return "";
    return "data:" + mime + ";base64," + b.data.replace(/\s+/g, "");
  }

  const parsed = new Map();
  async function entryLine(id) {
    let m = parsed.get(id);
    if (m === undefined) {
      const p = BY_ID.get(id);
      try { m = p === undefined ? null : JSON.parse((await entryRecord(p))[0]); } catch (e) { m = null; }
      if (m === null || typeof m !== "object" || Array.isArray(m)) m = null;
      if (parsed.size > 256) parsed.clear();
      parsed.set(id, m);
    }
    return m;
  }

  async function message(id) {
    const line = await entryLine(id);
    return (line && line.message) || null;
  }

  async function lineTimestamp(id) {
    const line = await entryLine(id);
    return line && typeof line.timestamp === "string" ? line.timestamp : "";
  }

  async function thinkingText(id, k) {
    const msg = await message(id);
    const c = msg && Array.isArray(msg.content) ? msg.content.filter((b) => b && b.type === "thinking") : [];
    return c[k] && typeof c[k].thinking === "string" ? c[k].thinking : "";
  }

  // a text without Markdown syntax, from its entry's line (the record does not hold it twice):
  // the string content (k < 0), or the text blocks from index k on joined with a blank line
  async function plainText(id, k) {
    const msg = await message(id);
    const c = msg && msg.content;
    if (k < 0) return typeof c === "string" ? c : "";
    const texts = [];
    for (let i = k; Array.isArray(c) && i < c.length && c[i] && c[i].type === "text"; i++) texts.push(String(c[i].text));
    return texts.join("\n\n");
  }

  // what the export's plain_markdown writes: paragraphs at blank lines (& and < cannot occur in
  // such a text; escaped all the same)
  function plainParagraphs(text) {
    const t = text.replace(/^\n+|\n+$/g, "").replace(/&/g, "&amp;").replace(/</g, "&lt;")
      .replace(/"/g, "&quot;").replace(/>/g, "&gt;");
    return t ? t.split(/\n\n+/).map((p) => "<p>" + p + "</p>\n").join("") : "";
  }

  // a tool result's output, from its own line (the record does not hold it twice): the text
  // blocks joined with newlines, as the export's blocks join them
  async function outputText(id) {
    const msg = await message(id);
    const c = msg && msg.content;
    let text = "";
    if (typeof c === "string") text = c;
    else if (Array.isArray(c)) {
      const parts = [];
      for (const b of c) if (b && typeof b === "object" && !Array.isArray(b) && b.type === "text") parts.push(b.text || "");
      text = parts.join("\n");
    }
    return text || "(no output)";
  }

  async function renderWindow(lo, hi, where) {
    const made = [];
    for (let i = lo; i < hi; i++) made.push(await renderEntry(branch[i]));
    const box = $("entries");
    if (where === "top") {
      const main = $("main");
      const before = main.scrollHeight;
      const top = main.scrollTop;
      box.prepend(...made);
      main.scrollTop = top + (main.scrollHeight - before);
    } else box.append(...made);
  }

  async function navigateTo(leaf, target, scroll) {
    const seq = ++navSeq;
    curLeaf = leaf;
    curTarget = target;
    setActive(leaf);
    branch = pathTo(leaf);
    let t = branch.indexOf(target);
    if (t < 0) { t = branch.length - 1; curTarget = leaf; }
    winLo = Math.max(0, t - PAGE);
    winHi = Math.min(branch.length, t + PAGE);
    const box = $("entries");
    box.replaceChildren();
    await renderWindow(winLo, winHi, "bottom");
    if (seq !== navSeq) return;
    updateUrl();
    markTarget(scroll);
    const k = nearestVisible(curTarget);
    if (k >= 0) { cursor = k; scrollRowIntoView(k); }
    paintRows(true);
  }

  function markTarget(scroll) {
    for (const el of document.querySelectorAll(".entry.target")) el.classList.remove("target");
    if (curTarget < 0) return;
    let el = document.getElementById("e-" + D.ids[curTarget]);
    if (el && el.classList.contains("absorbed")) {
      const slot = document.querySelector(`.tool-result[data-entry="${CSS.escape(D.ids[curTarget])}"]`);
      el = slot ? slot.closest(".entry") : el;
    }
    if (el) { el.classList.add("target"); if (scroll !== false) el.scrollIntoView({ block: "start" }); }
  }

  function updateUrl() {
    if (curLeaf < 0) return;
    const u = new URL(location.href);
    u.searchParams.set("leafId", D.ids[curLeaf]);
    u.searchParams.set("targetId", D.ids[curTarget >= 0 ? curTarget : curLeaf]);
    history.replaceState(null, "", u.toString());
  }

  let loadingMore = false;
  async function onMainScroll() {
    if (loadingMore) return;
    const main = $("main");
    loadingMore = true;
    try {
      if (main.scrollTop < 600 && winLo > 0) {
        const lo = Math.max(0, winLo - PAGE);
        const hi = winLo;
        winLo = lo;
        await renderWindow(lo, hi, "top");
      } else if (main.scrollTop + main.clientHeight > main.scrollHeight - 800 && winHi < branch.length) {
        const lo = winHi;
        const hi = Math.min(branch.length, winHi + PAGE);
        winHi = hi;
        await renderWindow(lo, hi, "bottom");
      }
    } finally { loadingMore = false; }
  }

  function toast(msg) {
    let t = $("toast");
    if (!t) { t = document.createElement("div"); t.id = "toast"; document.body.appendChild(t); }
    t.textContent = msg;
    t.classList.add("on");
    setTimeout(() => t.classList.remove("on"), 1500);
  }

  async function copyLink(id) {
    const u = new URL(location.href);
    u.searchParams.set("leafId", D.ids[curLeaf]);
    u.searchParams.set("targetId", id);
    const text = u.toString();
    try { await navigator.clipboard.writeText(text); toast("link copied"); }
    catch (e) { window.prompt("Copy this link:", text); }
  }

  function hex(bytes) { return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""); }

  // a UUIDv7, as loomtui and pi 0.73 name a session
  function newSessionId() {
    const b = crypto.getRandomValues(new Uint8Array(16));
    let ms = Date.now();
    for (let i = 5; i >= 0; i--) { b[i] = ms % 256; ms = Math.floor(ms / 256); }
    b[6] = 0x70 | (b[6] & 0x0f);
    b[8] = 0x80 | (b[8] & 0x3f);
    const h = hex(b);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  // the shown branch as the pi session `loomtui export-branch` writes (branch_file.py): a new
  // header, each entry's line as the export writes it (its record's, or the one beside it),
  // then the labels on the branch and the session's name, under new ids
  async function branchFile() {
    const F = D.branchFile;
    const now = new Date().toISOString();
    const sid = newSessionId();
    const head = { type: "session", version: 3, id: sid, timestamp: now, cwd: F.cwd };
    if (F.parent !== null) head.parentSession = F.parent;
    const lines = [JSON.stringify(head)];
    const onPath = new Map();
    const ids = new Set();
    let last = null, named = 0;
    for (const p of branch) {
      const rec = await entryRecord(p);
      const w = rec[5];
      if (w === 0) continue;  // a label entry: re-created after the branch
      lines.push(w === undefined ? rec[0] : Array.isArray(w) ? w[0] + now + w[1] : w);
      onPath.set(p, true);
      ids.add(D.ids[p]);
      last = D.ids[p];
      if (F.infos[p] !== undefined) named = F.infos[p];
    }
    for (const [target, members] of F.tail) {
      if (target >= 0 ? !onPath.has(target) : named === 1) continue;
      let id;
      do id = hex(crypto.getRandomValues(new Uint8Array(4))); while (ids.has(id));
      ids.add(id);
      const parts = members.map(([k, v]) => {
        const value = k === "id" ? id : k === "parentId" ? last : k === "timestamp" && v === null ? now : v;
        return JSON.stringify(k) + ":" + JSON.stringify(value);
      });
      lines.push("{" + parts.join(",") + "}");
      last = id;
    }
    return { text: lines.join("\n") + "\n", name: now.replace(/[:.]/g, "-") + "_" + sid + ".jsonl" };
  }

  async function download(which) {
    const n = D.chunks;
    const parts = [];
    let name = D.fileName;
    if (which === "file") {
      if (D.original !== null) {
        const bytes = b64bytes($("d-orig").textContent.trim());
        const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
        parts.push(await new Response(stream).blob());
      } else {
        const lines = [];
        for (let k = 0; k < n; k++) for (const r of await chunk(k)) if (r[2] !== 0) lines.push(r[0]);
        parts.push(lines.join("\n"));
      }
    } else {
      const made = await branchFile();
      parts.push(made.text);
      name = made.name;
    }
    const blob = new Blob(parts, { type: "application/octet-stream" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    // the browser reads the blob when the download starts, which a busy machine can put off for
    // seconds: it is let go a minute later, not sooner
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 60000);
  }

  // ---------------------------------------------------------------- events
  function setMode(m) {
    if (!D.filters[m]) return;  // a mode this page does not have (the loom map has only default)
    mode = m;
    folded.clear();
    for (const b of $("modes").children) b.setAttribute("aria-checked", String(b.dataset.mode === m));
    const keep = view.length ? rows.pos[view[cursor]] : curTarget;
    recompute(keep);
    if (cursor < view.length) scrollRowIntoView(cursor);
  }

  function openRow(k) {
    const i = view[k];
    if (i === undefined) return;
    const p = rows.pos[i];
    cursor = k;
    navigateTo(NEWEST[p], p, true);
  }

  function bind() {
    const box = $("rows");
    box.addEventListener("scroll", () => requestAnimationFrame(() => paintRows(false)));
    box.addEventListener("click", (ev) => {
      const row = ev.target.closest(".row");
      if (!row) return;
      const k = Number(row.dataset.k);
      if (ev.target.closest(".fold")) { if (toggleFold(k)) return; }
      if (String(window.getSelection())) return;
      openRow(k);
    });
    box.addEventListener("keydown", (ev) => {
      let k = cursor;
      if (ev.key === "ArrowDown") k = cursor === view.length - 1 ? 0 : cursor + 1;
      else if (ev.key === "ArrowUp") k = cursor === 0 ? view.length - 1 : cursor - 1;
      else if (ev.key === "PageDown") k = Math.min(view.length - 1, cursor + 20);
      else if (ev.key === "PageUp") k = Math.max(0, cursor - 20);
      else if (ev.key === "Home") k = 0;
      else if (ev.key === "End") k = view.length - 1;
      else if (ev.key === "ArrowLeft") { toggleFold(cursor, true); ev.preventDefault(); return; }
      else if (ev.key === "ArrowRight") { toggleFold(cursor, false); ev.preventDefault(); return; }
      else if (ev.key === "Enter") { openRow(cursor); ev.preventDefault(); return; }
      else return;
      ev.preventDefault();
      cursor = k;
      scrollRowIntoView(k);
      paintRows(true);
    });
    $("search").addEventListener("input", async (ev) => {
      await searchTexts();
      query = ev.target.value;
      folded.clear();
      const keep = view.length ? rows.pos[view[cursor]] : curTarget;
      recompute(keep);
      if (cursor < view.length) scrollRowIntoView(cursor);
    });
    $("main").addEventListener("scroll", () => { onMainScroll(); });
    document.addEventListener("click", (ev) => {
      const t = ev.target;
      if (t.closest(".copy-link")) { copyLink(t.closest(".copy-link").dataset.id); return; }
      const st = t.closest(".tstate");
      if (st) {
        const box2 = st.closest(".tool-out");
        const next = { collapsed: "preview", preview: "full", full: "collapsed" }[box2.dataset.state] || "preview";
        box2.dataset.state = next;
        st.textContent = next === "collapsed" ? "show" : next === "preview" ? "more" : "less";
        return;
      }
      const dl = t.closest("[data-download]");
      if (dl) download(dl.dataset.download);
      if (t.closest("[data-toggle=hidden]")) toggleHidden();
    });
    // H shows or hides the custom messages marked hidden (not while typing in the search)
    document.addEventListener("keydown", (ev) => {
      if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.target.closest("input, textarea")) return;
      if (ev.key === "h" || ev.key === "H") { toggleHidden(); ev.preventDefault(); }
    });
  }

  function toggleHidden(show) {
    const on = show === undefined ? !document.body.classList.contains("show-hidden") : show;
    document.body.classList.toggle("show-hidden", on);
    for (const b of document.querySelectorAll("[data-toggle=hidden]")) {
      b.setAttribute("aria-pressed", String(on));
      b.textContent = on ? "hide hidden messages (H)" : "show hidden messages (H)";
    }
  }

  async function start() {
    D = JSON.parse(await inflate("d-side"));
    N = D.ids.length;
    END = D.end; PARENT = D.parent; NEWEST = D.newest;
    for (const k in D.labels) labelsLower.set(Number(k), D.labels[k].toLowerCase());
    const params = new URLSearchParams(location.search);
    const byId = BY_ID;
    D.ids.forEach((id, p) => byId.set(id, p));
    let leaf = D.leaf;
    let target = D.target >= 0 ? D.target : D.leaf;
    const ul = params.get("leafId"), ut = params.get("targetId");
    if (ul !== null && byId.has(ul)) { leaf = byId.get(ul); target = leaf; }
    if (ut !== null && byId.has(ut)) {
      target = byId.get(ut);
      if (ul === null || !byId.has(ul)) leaf = NEWEST[target];
    }
    if (leaf < 0 && N) leaf = NEWEST[0];
    curLeaf = leaf; curTarget = target;
    setActive(D.leaf);
    const modes = $("modes");
    D.modes.forEach((m) => {
      const b = document.createElement("button");
      b.textContent = m;
      b.dataset.mode = m;
      b.setAttribute("role", "radio");
      b.setAttribute("aria-checked", String(m === mode));
      b.addEventListener("click", () => setMode(m));
      modes.appendChild(b);
    });
    recompute(target);
    bind();
    setTimeout(searchTexts, 0);
    window.loomtui = { ready: false, setMode, toggleHidden, rowsText: () => view.map((_, k) => rowLine(k)) };
    if (N) {
      // the tree's own leaf marks stay until the user picks another branch (as in `loomtui tree`)
      const keepMarks = leaf === D.leaf;
      await navigateTo(leaf, target, true);
      if (keepMarks) { setActive(D.leaf); paintRows(true); }
    }
    window.loomtui.ready = true;
    document.documentElement.dataset.ready = "1";
  }

  function rowLine(k) {
    const { p, pre, mark } = rowText(k);
    const lab = D.labels[p];
    let s = pre + mark + (activeMark[p] ? "• " : "") + (lab !== undefined ? "[" + lab + "] " : "");
    const seg = D.segs[p];
    for (let j = 0; j < seg.length; j += 2) s += seg[j + 1];
    return s;
  }

  start().catch((e) => { $("count").textContent = "could not read the page's data: " + e; throw e; });
})();
