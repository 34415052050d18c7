// mazesim play dashboard: who is on which maze, moves so far, finished; refreshed every few
// seconds. The key comes from the address's fragment (#key=...), which browsers never send.
"use strict";

const REFRESH_MS = 2000;
const $ = (id) => document.getElementById(id);

function cell(text) {
  const td = document.createElement("td");
  td.textContent = text;
  return td;
}

function ago(ms) {
  const seconds = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return seconds < 120 ? `${seconds} s ago` : `${Math.round(seconds / 60)} min ago`;
}

async function refresh(key) {
  try {
    const response = await fetch("api/dashboard", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ key }), cache: "no-store",
    });
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || response.statusText);
    $("title").textContent = `Dashboard: ${data.session}`;
    $("message").textContent = data.failure || "";
    const rows = data.participants;
    const done = rows.filter((p) => p.phase === "done").length;
    $("summary").textContent = `${rows.length} participants, ${done} finished`;
    const body = $("participants").tBodies[0];
    body.replaceChildren(...rows.map((p) => {
      const tr = document.createElement("tr");
      tr.dataset.participant = p.participant;
      tr.append(cell(p.participant), cell(p.pilot ? "pilot" : ""), cell(p.phase),
        cell(p.maze || ""), cell(p.position ? `${p.position} of ${p.total}` : ""),
        cell(p.moves), cell(p.bumps), cell(`${p.finished} of ${p.total}`), cell(ago(p.active_ms)));
      return tr;
    }));
  } catch (error) {
    $("message").textContent = `Cannot refresh: ${error.message}`;
  }
}

const key = new URLSearchParams(window.location.hash.slice(1)).get("key") || "";
refresh(key);
setInterval(() => refresh(key), REFRESH_MS);
