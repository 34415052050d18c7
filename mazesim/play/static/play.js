// mazesim play page: id entry, instructions, one maze at a time, every move sent to the server.
// The page only ever holds what the server sent: under limited vision, the window around the
// participant (start and goal as offsets, only when inside it).
"use strict";

const STORAGE_KEY = "mazesim-participant";
const COLORS = { wall: "#000000", passage: "#ffffff", start: "#8fd18f", goal: "#ffd24d",
                 player: "#d01c1c", label: "#000000" };
const WINDOW_CELL_PX = 48;
const FULL_CELL_PX_MAX = 32;
const FULL_CANVAS_PX = 640;
const MAX_QUEUE = 8;
const RETRY_MS = 500;
const KEYS = { ArrowUp: "up", ArrowRight: "right", ArrowDown: "down", ArrowLeft: "left" };

let state = null;       // the last state the server sent
const queue = [];       // key presses waiting for the move in flight: {direction, t}
let busy = false;

const $ = (id) => document.getElementById(id);

function say(text, info) {
  $("message").textContent = text || "";
  $("message").className = info ? "info" : "";
}

async function api(path, body) {
  const response = await fetch(path, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body), cache: "no-store",
  });
  const data = await response.json();
  if (!response.ok) {
    const error = new Error(data.error || response.statusText);
    error.status = response.status;
    throw error;
  }
  return data;
}

function show(section) {
  for (const id of ["login", "ready", "game", "done"]) $(id).hidden = id !== section;
  $("who").hidden = section === "login";
}

function visionText(vision) {
  if (vision === "full") return "You can see the whole maze.";
  return `You can only see the squares within ${vision} of you (a ${2 * vision + 1} by ` +
    `${2 * vision + 1} window); the goal appears when it is inside it.`;
}

function render(newState) {
  state = newState;
  $("who-id").textContent = state.participant;
  if (state.phase === "done") { show("done"); return; }
  const maze = state.maze;
  const title = `${maze.practice ? "Practice maze" : "Maze"} ${state.index + 1} of ${state.total}`;
  if (state.phase === "ready") {
    show("ready");
    $("ready-title").textContent = title;
    $("vision-text").textContent = visionText(maze.vision);
    if (state.last) say(`Goal reached in ${state.last.moves} moves.`, true);
    $("start").focus();
    return;
  }
  show("game");
  $("game-title").textContent = title;
  $("moves").textContent = `Moves: ${state.moves}`;
  draw(state.view);
}

function draw(view) {
  const canvas = $("maze");
  const rows = view.rows;
  const h = rows.length, w = rows[0].length;
  const px = view.kind === "window" ? WINDOW_CELL_PX
    : Math.max(4, Math.min(FULL_CELL_PX_MAX, Math.floor(FULL_CANVAS_PX / Math.max(h, w))));
  canvas.width = w * px;
  canvas.height = h * px;
  canvas.dataset.kind = view.kind;
  canvas.dataset.cell = px;
  const ctx = canvas.getContext("2d");
  for (let r = 0; r < h; r++) {
    for (let c = 0; c < w; c++) {
      ctx.fillStyle = rows[r][c] === "#" ? COLORS.wall : COLORS.passage;
      ctx.fillRect(c * px, r * px, px, px);
    }
  }
  // Start, goal and participant: absolute cells under full vision, offsets from the centre else.
  const centre = view.kind === "window" ? [view.k, view.k] : view.position;
  const place = (cell) => (cell && view.kind === "window"
    ? [cell[0] + view.k, cell[1] + view.k] : cell);
  mark(ctx, place(view.start), px, COLORS.start, "S");
  mark(ctx, place(view.goal), px, COLORS.goal, "G");
  ctx.fillStyle = COLORS.player;
  ctx.beginPath();
  ctx.arc((centre[1] + 0.5) * px, (centre[0] + 0.5) * px, px * 0.32, 0, 2 * Math.PI);
  ctx.fill();
}

function mark(ctx, cell, px, color, letter) {
  if (!cell) return;
  const inset = Math.max(1, Math.floor(px / 8));
  ctx.fillStyle = color;
  ctx.fillRect(cell[1] * px + inset, cell[0] * px + inset, px - 2 * inset, px - 2 * inset);
  ctx.fillStyle = COLORS.label;
  ctx.font = `bold ${Math.floor(px * 0.6)}px sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(letter, (cell[1] + 0.5) * px, (cell[0] + 0.55) * px);
}

function press(direction) {
  if (!state || state.phase !== "playing" || queue.length >= MAX_QUEUE) return;
  queue.push({ direction, t: performance.timeOrigin + performance.now() });
  pump();
}

async function pump() {
  if (busy) return;
  busy = true;
  try {
    while (queue.length && state.phase === "playing") {
      const next = queue[0];
      if (!state.view.open.includes(next.direction)) { queue.shift(); continue; }
      const body = { participant: state.participant, maze: state.maze.id, seq: state.seq,
                     direction: next.direction, t: next.t };
      try {
        const reply = await api("/api/move", body);
        queue.shift();
        render(reply.state);
      } catch (error) {
        if (error.status === undefined) {          // network: resend the same seq (deduplicated)
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
          continue;
        }
        queue.length = 0;
        say(error.message);
        render((await api("/api/state", { participant: state.participant })).state);
      }
    }
    if (state.phase !== "playing") queue.length = 0;
  } finally {
    busy = false;
  }
}

async function join(participant) {
  try {
    const reply = await api("/api/join", { participant });
    localStorage.setItem(STORAGE_KEY, participant);
    say("");
    render(reply.state);
  } catch (error) {
    localStorage.removeItem(STORAGE_KEY);
    show("login");
    say(error.message);
  }
}

function setup() {
  $("login-form").addEventListener("submit", (event) => {
    event.preventDefault();
    join($("participant").value.trim());
  });
  $("start").addEventListener("click", async () => {
    try {
      say("");
      const reply = await api("/api/start", { participant: state.participant,
                                              maze: state.maze.id });
      render(reply.state);
    } catch (error) { say(error.message); }
  });
  $("switch").addEventListener("click", () => {
    localStorage.removeItem(STORAGE_KEY);
    state = null;
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
  const saved = localStorage.getItem(STORAGE_KEY);
  if (saved) join(saved); else show("login");
}

setup();
