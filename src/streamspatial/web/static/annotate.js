// The annotation page (UCS-Bench F.3.1): mark the query time and evidence intervals on the
// timeline, write the question and options, pick the task, save.  Evidence must end strictly
// before the query time; the page says so at once, and the server re-checks every item with
// the OVO-S adapter before it is written.
"use strict";

const LETTERS = "ABCDEFG";
const $ = (id) => document.getElementById(id);
const video = $("video");
let queryTime = null;
let evidence = [];      // [[start, end], ...]
let pendingStart = null;
let points = [];        // query points kept so far: {time, evidence, answer} (Revisit Counting)
let tasks = {};

function fmt(t) { return t === null ? "—" : `${t.toFixed(2)} s`; }

function currentPoint() {
  return queryTime === null ? null :
    {time: queryTime, evidence: evidence.map((e) => [...e]), answer: $("answer").value};
}

function pointProblems(p, label) {
  const out = [];
  for (const [s, e] of p.evidence) {
    if (e >= p.time) {
      out.push(`${label}: evidence [${s.toFixed(2)}, ${e.toFixed(2)}] must end strictly ` +
               `before the query time ${p.time.toFixed(2)} s`);
    }
  }
  return out;
}

function allPoints() {
  const cur = currentPoint();
  return cur === null ? [...points] : [...points, cur];
}

function localProblems() {
  const out = [];
  if (queryTime === null && points.length === 0) out.push("mark the query time");
  if (pendingStart !== null) out.push("close the open evidence interval (Evidence end)");
  const all = allPoints();
  all.forEach((p, i) => out.push(...pointProblems(p, `query point ${i + 1}`)));
  for (let i = 1; i < all.length; i++) {
    if (all[i].time <= all[i - 1].time) out.push("query points must be in increasing time");
  }
  const opts = optionValues();
  if (opts.length < 2) out.push("write at least two options");
  if (new Set(opts).size < opts.length) out.push("options must differ");
  return out;
}

function drawTimeline() {
  const bar = $("timeline");
  const d = video.duration || 1;
  const parts = [];
  for (const p of points) {
    for (const [s, e] of p.evidence) {
      const span = document.createElement("div");
      span.className = "evidence kept";
      span.style.left = `${100 * s / d}%`;
      span.style.width = `${Math.max(0.5, 100 * (e - s) / d)}%`;
      parts.push(span);
    }
    const q = document.createElement("div");
    q.className = "query kept";
    q.style.left = `${100 * p.time / d}%`;
    parts.push(q);
  }
  for (const [s, e] of evidence) {
    const span = document.createElement("div");
    span.className = "evidence";
    span.style.left = `${100 * s / d}%`;
    span.style.width = `${Math.max(0.5, 100 * (e - s) / d)}%`;
    parts.push(span);
  }
  if (queryTime !== null) {
    const q = document.createElement("div");
    q.className = "query";
    q.style.left = `${100 * queryTime / d}%`;
    parts.push(q);
  }
  const c = document.createElement("div");
  c.className = "cursor";
  c.style.left = `${100 * video.currentTime / d}%`;
  parts.push(c);
  bar.replaceChildren(...parts);
  $("query-time").textContent = fmt(queryTime);
  $("evidence-list").replaceChildren(...evidence.map(([s, e], i) => {
    const li = document.createElement("li");
    li.append(`evidence ${i + 1}: ${fmt(s)} – ${fmt(e)} `);
    const rm = document.createElement("button");
    rm.type = "button"; rm.textContent = "remove";
    rm.addEventListener("click", () => { evidence.splice(i, 1); drawTimeline(); });
    li.append(rm);
    if (queryTime !== null && e >= queryTime) {
      const warn = document.createElement("span");
      warn.className = "error";
      warn.textContent = " not before the query time";
      li.append(warn);
    }
    return li;
  }));
  if (pendingStart !== null) {
    const li = document.createElement("li");
    li.textContent = `evidence open from ${fmt(pendingStart)}…`;
    $("evidence-list").append(li);
  }
  $("points").replaceChildren(...points.map((p, i) => {
    const li = document.createElement("li");
    const ev = p.evidence.map(([s, e]) => `${fmt(s)}–${fmt(e)}`).join(", ") || "none";
    li.append(`query point ${i + 1}: at ${fmt(p.time)}, answer ${p.answer}, evidence ${ev} `);
    const rm = document.createElement("button");
    rm.type = "button"; rm.textContent = "remove";
    rm.addEventListener("click", () => { points.splice(i, 1); drawTimeline(); });
    li.append(rm);
    return li;
  }));
}

function optionValues() {
  return [...document.querySelectorAll("#options input")].map((i) => i.value.trim());
}

function addOption(value = "") {
  const list = $("options");
  if (list.children.length >= LETTERS.length) return;
  const li = document.createElement("li");
  const input = document.createElement("input");
  input.size = 50; input.value = value; input.required = true;
  const rm = document.createElement("button");
  rm.type = "button"; rm.textContent = "remove";
  rm.addEventListener("click", () => {
    if (list.children.length > 2) { li.remove(); refreshAnswers(); }
  });
  li.append(input, " ", rm);
  list.append(li);
  refreshAnswers();
}

function refreshAnswers() {
  const sel = $("answer");
  const keep = sel.value;
  const n = $("options").children.length;
  sel.replaceChildren(...[...LETTERS.slice(0, n)].map((l) => new Option(l, l)));
  if (keep && LETTERS.indexOf(keep) < n) sel.value = keep;
}

function resetItem() {
  queryTime = null; evidence = []; pendingStart = null; points = [];
  $("question").value = "";
  $("options").replaceChildren();
  addOption(); addOption(); addOption(); addOption();
  drawTimeline();
}

async function loadInfo() {
  const info = await (await fetch("/api/annotation")).json();
  $("count").textContent = `${info.items} item(s) in ${info.file}`;
  tasks = Object.fromEntries(info.tasks.map((t) => [t.code, t.name]));
  $("task-list").replaceChildren(...info.tasks.map((t) => new Option(t.name, t.code)));
  return info;
}

$("task-code").addEventListener("change", () => {
  const name = tasks[$("task-code").value.trim()];
  if (name && !$("task-name").value) $("task-name").value = name;
});

$("mark-query").addEventListener("click", () => { queryTime = video.currentTime; drawTimeline(); });
$("mark-start").addEventListener("click", () => { pendingStart = video.currentTime; drawTimeline(); });
$("mark-end").addEventListener("click", () => {
  if (pendingStart === null) return;
  const end = video.currentTime;
  evidence.push([Math.min(pendingStart, end), Math.max(pendingStart, end)]);
  pendingStart = null;
  drawTimeline();
});
$("add-option").addEventListener("click", () => addOption());
// Items asked several times (Revisit Counting): keep this point, mark the next one.
$("add-point").addEventListener("click", () => {
  const cur = currentPoint();
  const problems = cur === null ? ["mark the query time"] : pointProblems(cur, "this query point");
  if (pendingStart !== null) problems.push("close the open evidence interval (Evidence end)");
  if (cur !== null && points.length && cur.time <= points[points.length - 1].time) {
    problems.push("query points must be in increasing time");
  }
  if (problems.length) { showProblems(problems); return; }
  points.push(cur);
  queryTime = null; evidence = [];
  showProblems([]);
  drawTimeline();
});

function showProblems(list) {
  $("problems").replaceChildren(...list.map((p) => Object.assign(
    document.createElement("li"), {textContent: p})));
}
video.addEventListener("timeupdate", drawTimeline);
video.addEventListener("loadedmetadata", drawTimeline);
setInterval(() => { $("clock").textContent = fmt(video.currentTime); }, 100);

$("video-select").addEventListener("change", () => {
  video.src = "/media/" + $("video-select").value;
  resetItem();
});

$("item-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  $("saved").textContent = "";
  const problems = localProblems();
  if (problems.length) { showProblems(problems); return; }
  const r3 = (t) => Math.round(t * 1000) / 1000;
  const body = {
    video: $("video-select").value,
    question: $("question").value,
    options: optionValues(),
    task_subcategory: $("task-code").value.trim(),
    task_type_name: $("task-name").value.trim(),
    source_dataset: $("source").value.trim(),
    queries: allPoints().map((p) => ({
      time: r3(p.time), answer: p.answer, evidence: p.evidence.map(([s, e]) => [r3(s), r3(e)])})),
  };
  const r = await fetch("/api/annotations", {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await r.json();
  if (!r.ok) {
    const list = Array.isArray(data.detail) ? data.detail : [JSON.stringify(data.detail)];
    showProblems(list.map((p) => (typeof p === "string" ? p : p.msg)));
    return;
  }
  showProblems([]);
  $("saved").textContent = `saved item ${data.id}`;
  await loadInfo();
  resetItem();
});

loadInfo().then((info) => {
  $("video-select").replaceChildren(...info.videos.map((v) => new Option(v, v)));
  if (info.videos.length) video.src = "/media/" + info.videos[0];
  resetItem();
});
