// The participant's page.  Streaming protocol (OVO-S-Bench §4.1, VCBench App. B.3): the video plays
// from its start, pauses by itself at each query time, and the question is fetched only then;
// seeking past the furthest point reached, or back into what has played, is undone at once.
// The server enforces the same rules, so this page is a convenience, not the guard.
"use strict";

const slug = new URLSearchParams(location.search).get("p");
const video = document.getElementById("video");
const playButton = document.getElementById("play");
const questionBox = document.getElementById("question");
const errorBox = document.getElementById("error");

let mode = "streaming";
let currentVideo = null;
let furthest = 0;        // the furthest time reached in this video (streaming)
let nextTime = null;     // the next query time (streaming)
let asking = false;      // a question is on screen
let shownQuestion = null; // the streaming question on screen, for keyboard answers
let started = Promise.resolve(); // the server has started this video's clock

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  const r = await fetch(`/api/participants/${encodeURIComponent(slug)}${path}`, init);
  const data = await r.json();
  if (!r.ok) {
    const err = new Error(typeof data.detail === "string" ? data.detail : JSON.stringify(data));
    err.status = r.status;
    throw err;
  }
  return data;
}

function fmt(t) { return `${t.toFixed(1)} s`; }

function show(state) {
  mode = state.mode;
  document.getElementById("who").textContent = state.model;
  document.getElementById("progress").textContent = `${state.answered}/${state.total} answered`;
  if (state.finished) {
    document.getElementById("player").hidden = true;
    questionBox.hidden = true;
    document.getElementById("done").hidden = false;
    document.getElementById("run-dir").textContent = state.run_dir;
    return;
  }
  const v = state.video;
  document.getElementById("video-title").textContent = `Video ${v.number} of ${v.of}`;
  nextTime = mode === "streaming" ? state.next_time : null;
  if (v.path !== currentVideo) {
    currentVideo = v.path;
    furthest = v.reached;
    video.controls = mode === "offline";
    video.src = v.url;
    video.addEventListener("loadedmetadata", () => { video.currentTime = furthest; },
                           {once: true});
    playButton.hidden = mode === "offline";
    playButton.disabled = false;
    started = api("/start", {video: v.path});
    started.catch(fail);
  } else if (!video.src.endsWith(v.url)) {
    // The server hands out the video only up to the next question: after an answer the
    // permitted prefix grows, under a new URL.  Reload it and carry on where we stopped.
    const at = furthest;
    video.src = v.url;
    video.addEventListener("loadedmetadata", () => { video.currentTime = at; }, {once: true});
  }
  if (mode === "offline") renderQuestions(state.questions);
  else { questionBox.hidden = true; asking = false; playButton.disabled = false; }
}

function fail(err) { errorBox.textContent = err.message; }

function optionControls(q) {
  const box = document.createElement("div");
  box.className = "options";
  if (q.answer_type === "choice") {
    for (const o of q.options) {
      const b = document.createElement("button");
      b.dataset.letter = o.letter;
      b.append(`${o.letter}. `);
      if (o.image) { const img = document.createElement("img"); img.src = o.image; b.append(img); }
      else b.append(o.text);
      b.addEventListener("click", () => submit(q, o.letter));
      box.append(b);
    }
  } else {
    const row = document.createElement("div");
    row.className = "row";
    const input = document.createElement("input");
    input.type = "number"; input.step = "any"; input.className = "number-answer";
    const b = document.createElement("button");
    b.textContent = "Answer"; b.className = "primary";
    b.addEventListener("click", () => submit(q, input.value));
    row.append(input, b);
    box.append(row);
  }
  return box;
}

function questionBlock(q) {
  const div = document.createElement("div");
  div.className = "q";
  div.dataset.item = q.item_id;
  const h = document.createElement("h3");
  h.textContent = mode === "offline" ? `At ${fmt(q.time)}: ${q.question}` : q.question;
  div.append(h, optionControls(q));
  return div;
}

function renderQuestions(questions) {
  questionBox.replaceChildren(...questions.map(questionBlock));
  questionBox.hidden = false;
}

async function submit(q, answer) {
  errorBox.textContent = "";
  try {
    const state = await api("/answers",
                            {item_id: q.item_id, query_index: q.query_index, answer: answer});
    const sameVideo = !state.finished && state.video.path === currentVideo;
    show(state);
    if (mode === "streaming" && sameVideo) video.play().catch(fail);
  } catch (err) { fail(err); }
}

async function ask(attempt = 0) {
  try {
    const q = await api("/question");
    shownQuestion = q;
    questionBox.replaceChildren(questionBlock(q));
    questionBox.hidden = false;
  } catch (err) {
    if (err.status === 409 && attempt < 20) setTimeout(() => ask(attempt + 1), 250);
    else fail(err);
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The server bounds progress by its own clock (no faster than 1x since the video started
// there), so a request that lagged on its way leaves that clock behind the page's.  Wait out
// the difference instead of asking for a question the server cannot release yet.
async function reportReached(video, t) {
  await started;
  for (let attempt = 0; ; attempt++) {
    const {reached} = await api("/progress", {video: video, time: t});
    const behind = t - reached;
    if (behind <= 0.05) return;
    if (attempt >= 20) {
      throw new Error(`the server accepts playback up to ${fmt(reached)} only, not ${fmt(t)}`);
    }
    await sleep(Math.min(2000, behind * 1000 + 100));
  }
}

function stopAtQuery() {
  asking = true;
  playButton.disabled = true;
  video.pause();
  furthest = nextTime;
  video.currentTime = nextTime;
  reportReached(currentVideo, nextTime).then(() => ask()).catch(fail);
}

// Watch the clock often enough to stop within a frame or two of the query time.
setInterval(() => {
  document.getElementById("clock").textContent = video.src ? fmt(video.currentTime) : "";
  if (mode !== "streaming" || asking || nextTime === null || !video.src) return;
  // Only playback moves the stream on: a seek (refused below) must not count as reaching.
  if (video.seeking || video.paused) return;
  if (video.currentTime >= nextTime) stopAtQuery();
  else furthest = Math.max(furthest, video.currentTime);
}, 15);

// A player that plays while its clock stands still, short of data, has stalled: seeking to
// where it stands makes the browser fetch the data again.  (Under a full test run a player
// was seen waiting at 0.29 s for good, playing, ready state 2.)
let lastClock = -1;
let stillSince = 0;
setInterval(() => {
  const now = performance.now();
  if (!video.src || video.paused || video.seeking || asking || video.currentTime !== lastClock) {
    lastClock = video.currentTime;
    stillSince = now;
    return;
  }
  if (now - stillSince > 2000 && video.readyState < 3) {
    stillSince = now;
    video.currentTime = video.currentTime;
  }
}, 500);

video.addEventListener("ended", () => {
  if (mode === "streaming" && !asking && nextTime !== null) stopAtQuery();
});

// No seeking in streaming mode: not past the furthest point, not back into what was seen.
video.addEventListener("seeking", () => {
  if (mode === "streaming" && Math.abs(video.currentTime - furthest) > 0.05) {
    video.currentTime = furthest;
  }
});
video.addEventListener("ratechange", () => { if (mode === "streaming") video.playbackRate = 1; });

setInterval(() => {
  if (mode === "streaming" && currentVideo && !video.paused && !asking) {
    api("/progress", {video: currentVideo, time: furthest}).catch(() => {});
  }
}, 1000);

// Keyboard: a letter answers the question on screen; space plays.
document.addEventListener("keydown", (ev) => {
  if (ev.target instanceof HTMLInputElement) return;
  const key = ev.key.toUpperCase();
  if (asking && shownQuestion && shownQuestion.answer_type === "choice" &&
      shownQuestion.options.some((o) => o.letter === key)) {
    const q = shownQuestion;
    shownQuestion = null;
    submit(q, key);
  } else if (ev.key === " " && mode === "streaming" && !asking) {
    ev.preventDefault();
    playButton.click();
  }
});

playButton.addEventListener("click", () => {
  if (asking) return;
  video.play().catch(fail);
});

if (!slug) fail(new Error("no participant: start from the study page"));
else api("").then(show).catch(fail);
