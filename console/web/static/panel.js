// The panel in a browser: /panel (watch), /sim (watch and play), /replay/<game id> (a stored game).
// Frames arrive as WLED live-view messages: 'L', 2, width, height, then R, G, B per LED, row by row.
"use strict";

const BOARD_COLS = 30, BOARD_ROWS = 16; // the board's cells: columns 1-30, rows A-P (the rest is status)
const ROW_NAMES = "ABCDEFGHIJKLMNOP";
const KEYS = {
  ArrowUp: "up", w: "up", W: "up", ArrowLeft: "left", a: "left", A: "left",
  ArrowDown: "down", s: "down", S: "down", ArrowRight: "right", d: "right", D: "right",
  Enter: "a", " ": "a", Backspace: "b", Escape: "b", Tab: "start", q: "quit", Q: "quit",
};
const DIRECTIONS = new Set(["up", "down", "left", "right"]);
const REPLAY_FPS = 20;

const path = location.pathname;
const replayMatch = path.match(/^\/replay\/([^/]+)$/);
const mode = replayMatch ? "replay" : path === "/sim" ? "sim" : "panel";
const board = document.getElementById("board");
document.body.dataset.mode = mode;
const statusLine = document.getElementById("status");
let dots = [], shownWidth = 0, shownHeight = 0, frames = 0;

function label(text) {
  const cell = document.createElement("div");
  cell.className = "label";
  cell.textContent = text;
  return cell;
}

// Every fifth column number stays when the board is too narrow for all of them (.minor hides).
function columnLabels(width) {
  const out = [label("")];
  for (let x = 0; x < width; x++) {
    const cell = label(x < BOARD_COLS ? String(x + 1) : "");
    if (x > 0 && (x + 1) % 5 !== 0) cell.classList.add("minor");
    out.push(cell);
  }
  out.push(label(""));
  return out;
}

// The grid: a label row, then each row of LEDs between its letter on both sides, a label row.
function build(width, height) {
  board.replaceChildren();
  board.style.gridTemplateColumns = `minmax(0, 1.4rem) repeat(${width}, minmax(0, 1fr)) minmax(0, 1.4rem)`;
  dots = [];
  const cells = columnLabels(width);
  for (let y = 0; y < height; y++) {
    const name = y < BOARD_ROWS ? ROW_NAMES[y] : "";
    cells.push(label(name));
    for (let x = 0; x < width; x++) {
      const dot = document.createElement("div");
      dot.className = "led";
      dot.dataset.x = x;
      dot.dataset.y = y;
      dots.push(dot);
      cells.push(dot);
    }
    cells.push(label(name));
  }
  cells.push(...columnLabels(width));
  board.append(...cells);
  shownWidth = width;
  shownHeight = height;
}

function showFrame(buffer) {
  const bytes = new Uint8Array(buffer);
  if (bytes.length < 4 || bytes[0] !== 0x4c || bytes[1] !== 2) return; // not a 2D live-view frame
  const width = bytes[2], height = bytes[3];
  if (bytes.length !== 4 + 3 * width * height) return;
  if (width !== shownWidth || height !== shownHeight) build(width, height);
  for (let i = 0; i < width * height; i++) {
    const j = 4 + 3 * i;
    const colour = `rgb(${bytes[j]}, ${bytes[j + 1]}, ${bytes[j + 2]})`;
    if (dots[i].style.backgroundColor !== colour) dots[i].style.backgroundColor = colour;
  }
  frames += 1;
  document.body.dataset.frames = frames;
}

// The round's clues beside the board, as given: a written one's words (a guest's text, so only
// ever textContent), a spoken one as such.
function showClues(clues) {
  document.getElementById("clues").replaceChildren(...(clues || []).map((clue, i) => {
    const item = Object.assign(document.createElement("span"), { className: "clue" });
    const which = Object.assign(document.createElement("span"), { className: "which", textContent: i === 0 ? "First clue" : "Second clue" });
    const written = clue.words.length > 0;
    const words = Object.assign(document.createElement("span"), {
      className: written ? "words" : "words aloud", textContent: written ? clue.words.join(" ") : "said aloud" });
    item.append(which, " ", words);
    return item;
  }));
}

function connect(url, onText) {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${url}`);
  ws.binaryType = "arraybuffer";
  ws.onopen = () => { statusLine.textContent = "connected"; document.body.dataset.connected = "yes"; };
  ws.onclose = () => {
    statusLine.textContent = "the console is not running (reload the page when it is)";
    document.body.dataset.connected = "no";
  };
  ws.onmessage = (event) => {
    if (typeof event.data !== "string") { showFrame(event.data); return; }
    const message = JSON.parse(event.data);
    if (message.t === "hint") { document.getElementById("hint").textContent = message.text; showClues(message.clues); }
    else if (message.t === "refused") statusLine.textContent = message.why;
    else onText(message);
  };
  return ws;
}

// --- /sim: the terminal simulator's keys and on-screen buttons ------------------------------------

function controls(ws) {
  document.getElementById("controls").hidden = false;
  const send = (kind, button) => { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ [kind]: button })); };
  document.addEventListener("keydown", (event) => {
    const button = KEYS[event.key];
    if (!button || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();
    if (!event.repeat) send("press", button);
    else if (DIRECTIONS.has(button)) send("repeat", button); // a held direction steps on; A, B, Start do not
  });
  document.addEventListener("keyup", (event) => {
    const button = KEYS[event.key];
    if (button) { event.preventDefault(); send("release", button); }
  });
  for (const element of document.querySelectorAll("[data-button]")) {
    const button = element.dataset.button;
    const up = () => { if (element.classList.contains("held")) { element.classList.remove("held"); send("release", button); } };
    element.addEventListener("pointerdown", (event) => {
      event.preventDefault();
      element.classList.add("held");
      send("press", button);
    });
    for (const name of ["pointerup", "pointerleave", "pointercancel"]) element.addEventListener(name, up);
  }
}

// --- /replay/<game id>: a stored game, step by step or in real time -------------------------------

async function replay(gameId) {
  document.getElementById("replay").hidden = false;
  document.getElementById("title").textContent = "A stored game";
  const answer = await fetch(`/replay/${encodeURIComponent(gameId)}/timeline`);
  const timeline = await answer.json();
  if (!answer.ok) { statusLine.textContent = timeline.error; return; }
  const scenes = timeline.scenes, slider = document.getElementById("time");
  const playButton = document.getElementById("play");
  slider.max = timeline.duration;
  let t = 0, playing = false, last = 0, asked = null;
  const ws = connect(`/replay/${encodeURIComponent(gameId)}/ws`, (message) => {
    if (message.t === "shown") document.body.dataset.shown = message.at;
  });
  const sceneAt = (time) => {
    let index = 0;
    while (index + 1 < scenes.length && scenes[index + 1].start <= time) index += 1;
    return index;
  };
  const show = (time) => {
    t = Math.min(Math.max(0, time), timeline.duration);
    slider.value = t;
    document.getElementById("clock").textContent = `${t.toFixed(1)} s`;
    const index = sceneAt(t);
    document.getElementById("caption").textContent = scenes[index].caption;
    showClues(scenes[index].clues);
    document.body.dataset.scene = index;
    const at = Math.round(t * REPLAY_FPS) / REPLAY_FPS;
    if (at !== asked && ws.readyState === WebSocket.OPEN) { asked = at; ws.send(JSON.stringify({ t: at })); }
  };
  const pause = () => { playing = false; playButton.textContent = "Play"; };
  const tick = (now) => {
    if (!playing) return;
    show(t + (now - last) / 1000);
    last = now;
    if (t >= timeline.duration) pause(); else requestAnimationFrame(tick);
  };
  const play = () => {
    if (t >= timeline.duration) show(0);
    playing = true;
    playButton.textContent = "Pause";
    last = performance.now();
    requestAnimationFrame(tick);
  };
  const step = (direction) => {
    pause();
    const index = sceneAt(t);
    if (direction > 0) show(index + 1 < scenes.length ? scenes[index + 1].start : timeline.duration);
    else show(t > scenes[index].start + 0.5 || index === 0 ? scenes[index].start : scenes[index - 1].start);
  };
  ws.addEventListener("open", () => show(0));
  playButton.addEventListener("click", () => (playing ? pause() : play()));
  document.getElementById("next").addEventListener("click", () => step(1));
  document.getElementById("previous").addEventListener("click", () => step(-1));
  slider.addEventListener("input", () => { pause(); show(Number(slider.value)); });
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("button, input")) return; // a focused control answers its own keys
    if (event.key === "ArrowRight") step(1);
    else if (event.key === "ArrowLeft") step(-1);
    else if (event.key === " ") { event.preventDefault(); playing ? pause() : play(); }
  });
}

if (mode === "replay") replay(decodeURIComponent(replayMatch[1]));
else {
  document.getElementById("title").textContent = mode === "sim" ? "The console, in the browser" : "The panel";
  const ws = connect(mode === "sim" ? "/sim/ws" : "/panel/ws", () => {});
  if (mode === "sim") controls(ws);
}
