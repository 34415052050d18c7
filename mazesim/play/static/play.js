// mazesim play page: entry (typed id, personal link or Prolific), consent, questions, one maze at
// a time, every key press sent to the server (a move, or a bump into a wall).
// The page only ever holds what the server sent: under limited vision, only what is in sight.
"use strict";

const STORAGE_KEY = "mazesim-participant";   // sessionStorage: this tab only, cleared at the end
const COLORS = { wall: "#000000", passage: "#ffffff", outside: "#8a9bb0", unseen: "#4d4d4d",
                 frame: "#1f5fbf", start: "#8fd18f", goal: "#ffd24d", player: "#d01c1c",
                 label: "#000000" };
const WINDOW_CELL_MAX_PX = 48;   // a window's cells are large ...
const FULL_CELL_MAX_PX = 32;     // ... a whole maze's as large as the screen allows, up to this
const MIN_CELL_PX = 2;
const FRAME_PX = 6;              // the frame drawn around a window
const EDGE_PX = 8;               // kept free below and beside the maze
const MAX_QUEUE = 1000;          // keys waiting to be sent; beyond, refused with a message
const RETRY_MS = [250, 500, 1000, 2000];
const REDIRECT_DELAY_MS = 3000;
const PROLIFIC = ["PROLIFIC_PID", "STUDY_ID", "SESSION_ID"];
const KEYS = { ArrowUp: "up", ArrowRight: "right", ArrowDown: "down", ArrowLeft: "left" };
const SECTIONS = ["login", "link-needed", "consent", "declined", "questions", "ready", "game",
                  "done"];

let entry = "id";      // how participants enter (server's /api/info)
let auth = null;       // {participant, token?}
let state = null;      // the last state the server sent
let stale = false;     // another tab took over this session
const queue = [];      // key presses waiting to be sent: {direction, t}
let busy = false;

const $ = (id) => document.getElementById(id);
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function say(text, info) {
  $("message").textContent = text || "";
  $("message").className = info ? "info" : "";
}

// One POST; network failures are retried until the server answers (the banner says so), HTTP
// refusals are thrown with the server's one-line reason.
async function api(action, fields) {
  const body = JSON.stringify({ ...(auth || {}), tab: state ? state.tab : undefined, ...fields });
  for (let attempt = 0; ; attempt++) {
    let response;
    try {
      response = await fetch(`api/${action}`, {
        method: "POST", headers: { "Content-Type": "application/json" }, body,
        cache: "no-store",
      });
    } catch (networkError) {
      $("offline").hidden = false;
      await sleep(RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]);
      continue;
    }
    $("offline").hidden = true;
    const data = await response.json().catch(() => ({ error: response.statusText }));
    if (response.ok) return data;
    const error = new Error(data.error || response.statusText);
    error.status = response.status;
    error.code = data.code;
    throw error;
  }
}

function show(section) {
  for (const id of SECTIONS) $(id).hidden = id !== section;
  document.body.classList.toggle("playing", section === "game");
  $("who").hidden = !auth || entry !== "id" || ["login", "done", "declined"].includes(section);
}

function remember(participant, token) {
  auth = token ? { participant, token } : { participant };
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(auth));
}

function forget() {
  sessionStorage.removeItem(STORAGE_KEY);
}

// After a join the token (and Prolific's ids) leave the address bar and the history: a shared
// screen, a screenshot or a copied address does not hand the session to someone else. A reload
// joins with what this tab remembers.
function clearAddress() {
  const url = new URL(window.location.href);
  const secret = ["t", ...PROLIFIC].filter((name) => url.searchParams.has(name));
  if (!secret.length) return;
  for (const name of secret) url.searchParams.delete(name);
  window.history.replaceState(window.history.state, "", url.pathname + url.search + url.hash);
}

function visionText(vision) {
  if (vision === "full") return "You can see the whole maze.";
  if (typeof vision === "number") {
    return `You can only see the squares within ${vision} of you (a ${2 * vision + 1} by ` +
      `${2 * vision + 1} window); the goal appears once it is inside it.`;
  }
  const reach = vision.isovist !== undefined
    ? `what is in your line of sight (up to ${vision.isovist} squares away)`
    : `the squares within ${vision.window} of you`;
  if (vision.map === "known") {
    return `You see the whole floor plan; floor you have not seen yet is dark. You see ${reach}` +
      "; the goal appears once you have seen its square.";
  }
  return `You can only see ${reach}; the goal appears once it is in sight.`;
}

function render(newState) {
  state = newState;
  $("who-id").textContent = state.participant;
  const phase = state.phase;
  if (phase === "consent") {
    $("consent-page").innerHTML = state.page || "";      // Markdown rendered and escaped
    show("consent");
    return;
  }
  if (phase === "declined" || phase === "done") {
    forget();                                            // the next person starts fresh
    if (phase === "done") finish(); else show("declined");
    return;
  }
  if (phase === "questions") {
    askQuestions(state.questions);
    return;
  }
  const maze = state.maze;
  const title = maze.practice ? `Practice maze ${maze.number} of ${maze.of}`
    : `Maze ${maze.number} of ${maze.of}`;
  if (phase === "ready") {
    show("ready");
    $("ready-title").textContent = title;
    $("practice-note").hidden = !maze.practice;
    $("practice-over").hidden = maze.practice || !(state.last && state.last.practice);
    $("instructions-page").innerHTML = state.page || "";
    $("vision-text").textContent = visionText(maze.vision);
    if (state.last) say(`Goal reached in ${state.last.moves} moves.`, true);
    $("start").focus();
    return;
  }
  show("game");
  $("game-title").textContent = title;
  $("practice-badge").hidden = !maze.practice;
  $("moves").textContent = `Moves: ${state.moves}`;
  draw(state.view);
}

function finish() {
  show("done");
  $("debrief-page").innerHTML = state.page || "";
  const completion = state.completion || {};
  $("completion").hidden = !completion.code;
  $("completion-code").textContent = completion.code || "";
  $("redirect").hidden = !completion.redirect;
  $("close-note").hidden = Boolean(completion.redirect);
  if (completion.redirect) {
    $("redirect-link").href = completion.redirect;
    setTimeout(() => window.location.assign(completion.redirect), REDIRECT_DELAY_MS);
  }
}

function askQuestions(questions) {
  const list = $("question-list");
  list.replaceChildren();
  for (const q of questions) {
    const box = document.createElement("div");
    box.className = "question";
    box.dataset.id = q.id;
    box.dataset.kind = q.kind;
    const label = document.createElement("label");
    label.textContent = q.text + (q.required ? "" : " (optional)");
    box.append(label);
    if (q.kind === "choice") {
      for (const option of q.options) {
        const span = document.createElement("label");
        span.className = "option";
        const input = document.createElement("input");
        Object.assign(input, { type: "radio", name: `q-${q.id}`, value: option });
        span.append(input, " ", option);
        box.append(span);
      }
    } else {
      const input = document.createElement(q.kind === "text" ? "textarea" : "input");
      input.name = `q-${q.id}`;
      label.htmlFor = input.id = `q-${q.id}`;
      if (q.kind === "number") {
        Object.assign(input, { type: "number", step: q.integer ? "1" : "any" });
        if (q.min !== null) input.min = q.min;
        if (q.max !== null) input.max = q.max;
      } else {
        input.maxLength = q.max_length;
        input.rows = 3;
      }
      box.append(input);
    }
    list.append(box);
  }
  show("questions");
}

function collectAnswers() {
  const answers = {};
  for (const box of $("question-list").children) {
    const { id, kind } = box.dataset;
    if (kind === "choice") {
      const checked = box.querySelector("input:checked");
      answers[id] = checked ? checked.value : null;
    } else {
      const value = box.querySelector("input, textarea").value;
      answers[id] = value === "" ? null : kind === "number" ? Number(value) : value;
    }
  }
  return answers;
}

// The available space: beside (or below) the side panel, under whatever sits above the board.
function cellSize(h, w, frame, maxCell) {
  const column = getComputedStyle($("game")).flexDirection === "column";
  const top = $("board").getBoundingClientRect().top + window.scrollY;
  let width = document.documentElement.clientWidth - 2 * EDGE_PX;
  let height = window.innerHeight - top - EDGE_PX;
  if (column) height -= $("side").offsetHeight + EDGE_PX;
  else width -= $("side").offsetWidth + EDGE_PX * 2;
  const cell = Math.floor(Math.min((width - 2 * frame) / w, (height - 2 * frame) / h));
  return Math.max(MIN_CELL_PX, Math.min(maxCell, cell));
}

function draw(view) {
  const canvas = $("maze");
  const rows = view.rows;
  const h = rows.length, w = rows[0].length;
  const windowed = view.kind === "window";
  const frame = windowed ? FRAME_PX : 0;
  const px = cellSize(h, w, frame, windowed ? WINDOW_CELL_MAX_PX : FULL_CELL_MAX_PX);
  const width = w * px + 2 * frame, height = h * px + 2 * frame;
  const ratio = window.devicePixelRatio || 1;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  Object.assign(canvas.dataset, { kind: view.kind, cell: px, frame, rows: h, cols: w });
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  if (frame) {
    ctx.fillStyle = COLORS.frame;
    ctx.fillRect(0, 0, width, height);
  }
  for (let r = 0; r < h; r++) {
    for (let c = 0; c < w; c++) {
      const ch = rows[r][c];
      ctx.fillStyle = ch === "#" ? COLORS.wall : ch === "~" ? COLORS.outside
        : ch === "?" || (view.seen && view.seen[r][c] === "0") ? COLORS.unseen : COLORS.passage;
      ctx.fillRect(frame + c * px, frame + r * px, px, px);
    }
  }
  // Start, goal and participant: absolute cells, or offsets from the centre of a window.
  const centre = windowed ? [view.k, view.k] : view.position;
  const place = (cell) => (cell && windowed ? [cell[0] + view.k, cell[1] + view.k] : cell);
  mark(ctx, place(view.start), px, frame, COLORS.start, "S");
  mark(ctx, place(view.goal), px, frame, COLORS.goal, "G");
  ctx.fillStyle = COLORS.player;
  ctx.beginPath();
  ctx.arc(frame + (centre[1] + 0.5) * px, frame + (centre[0] + 0.5) * px, Math.max(1, px * 0.32),
    0, 2 * Math.PI);
  ctx.fill();
}

function mark(ctx, cell, px, frame, color, letter) {
  if (!cell) return;
  const inset = Math.max(1, Math.floor(px / 8));
  const x = frame + cell[1] * px, y = frame + cell[0] * px;
  ctx.fillStyle = color;
  ctx.fillRect(x + inset, y + inset, px - 2 * inset, px - 2 * inset);
  if (px < 10) return;
  ctx.fillStyle = COLORS.label;
  ctx.font = `bold ${Math.floor(px * 0.6)}px sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(letter, x + px / 2, y + px * 0.55);
}

function press(direction) {
  if (stale || !state || state.phase !== "playing") return;
  if (queue.length >= MAX_QUEUE) {
    say(`Too many keys at once: ${direction} was not used. Wait for the maze to catch up.`);
    return;
  }
  queue.push({ direction, t: now() });
  pump();
}

// Sends the queued keys one at a time, each from the position the previous one left: an open
// direction is a move, a closed one a bump.
async function pump() {
  if (busy) return;
  busy = true;
  try {
    while (queue.length) {
      if (state.phase !== "playing") {
        const n = queue.length;
        queue.length = 0;
        say(`${n} key${n === 1 ? "" : "s"} pressed after the goal ${n === 1 ? "was" : "were"} ` +
            "not used.", true);
        break;
      }
      const next = queue[0];
      const open = state.view.open.includes(next.direction);
      const fields = { maze: state.maze.id, seq: state.seq, direction: next.direction,
                       t: next.t };
      if (!open) fields.bump = state.bumps + 1;
      try {
        const reply = await api(open ? "move" : "bump", fields);
        queue.shift();
        render(reply.state);
      } catch (error) {
        queue.length = 0;
        await refused(error);
      }
    }
  } finally {
    busy = false;
  }
}

async function refused(error) {
  if (error.code === "other-tab") {
    stale = true;
    $("other-tab").hidden = false;
    return;
  }
  say(error.message);
  if (auth && error.status !== 403) {
    try {
      render((await api("state", {})).state);
    } catch (again) {
      if (again.code === "other-tab") await refused(again); else say(again.message);
    }
  }
}

async function join(fields) {
  try {
    const reply = await api("join", fields);
    remember(reply.state.participant, reply.token);
    clearAddress();
    say("");
    render(reply.state);
  } catch (error) {
    forget();
    auth = null;
    show(entry === "id" ? "login" : "link-needed");
    say(error.message);
  }
}

async function checkTab() {
  if (!auth || stale || !state) return;
  try { await api("state", {}); } catch (error) { await refused(error); }
}

async function setup() {
  $("login-form").addEventListener("submit", (event) => {
    event.preventDefault();
    join({ participant: $("participant").value.trim() });
  });
  $("agree").addEventListener("click", () => act("consent", { agree: true }));
  $("decline").addEventListener("click", () => act("consent", { agree: false }));
  $("questions-form").addEventListener("submit", (event) => {
    event.preventDefault();
    act("answer", { answers: collectAnswers() });
  });
  $("start").addEventListener("click", () => act("start", { maze: state.maze.id, t: now() }));
  $("switch").addEventListener("click", () => {
    forget();
    auth = state = null;
    queue.length = 0;
    say("");
    show("login");
  });
  for (const button of document.querySelectorAll("button.move")) {
    button.addEventListener("click", () => press(button.dataset.direction));
  }
  document.addEventListener("keydown", (event) => {
    const direction = KEYS[event.key];
    if (!direction || !state || state.phase !== "playing") return;
    event.preventDefault();
    press(direction);
  });
  window.addEventListener("resize", () => {
    if (state && state.phase === "playing") draw(state.view);
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") checkTab();
  });
  window.addEventListener("focus", checkTab);

  entry = (await api("info", {})).entry;
  const query = new URLSearchParams(window.location.search);
  const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) || "null");
  if (query.get("t")) {
    join({ token: query.get("t") });
  } else if (query.get(PROLIFIC[0])) {
    join({ prolific: Object.fromEntries(PROLIFIC.map((name) => [name, query.get(name)])) });
  } else if (saved) {
    auth = saved;
    join(entry === "id" ? { participant: saved.participant } : {});
  } else {
    show(entry === "id" ? "login" : "link-needed");
  }
}

async function act(action, fields) {
  try {
    say("");
    render((await api(action, fields)).state);
  } catch (error) {
    await refused(error);
  }
}

setup();
