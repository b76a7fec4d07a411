// The phone's page: one websocket to the console; every view comes from the server (which strips
// what this seat may not see), every tap goes back as one small message. The seat token lives in
// localStorage only and travels inside the websocket, never in a URL.
"use strict";

const TOKEN_KEY = "hues-seat-token";
const $ = (id) => document.getElementById(id);
let ws = null, n = 0, board = null, view = null, retry = 500, showTarget = false;

function send(t, fields = {}) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ t, n: ++n, ...fields }));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${scheme}//${location.host}/ws`);
  n = 0;
  ws.onopen = () => {
    retry = 500;
    $("status").textContent = "connected";
    const token = localStorage.getItem(TOKEN_KEY);
    if (token) send("resume", { token });
  };
  ws.onmessage = (event) => receive(JSON.parse(event.data));
  ws.onclose = () => {
    $("status").textContent = "reconnecting…";
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 4000);
  };
}

function receive(msg) {
  if (msg.t === "board") { board = msg; buildBoard(); }
  else if (msg.t === "seated") {
    if (msg.token) localStorage.setItem(TOKEN_KEY, msg.token);
    refuse("");
  }
  else if (msg.t === "admitted") { document.body.dataset.admitted = "1"; refuse(""); if (view) render(); }
  else if (msg.t === "unseated") refuse(msg.why);
  else if (msg.t === "refused") {
    if (/seat is gone/.test(msg.why)) { localStorage.removeItem(TOKEN_KEY); document.body.dataset.admitted = ""; }
    refuse(msg.why);
  }
  else if (msg.t === "view") { view = msg; render(); }
}

function refuse(why) {
  $("refusal").textContent = why;
  $("refusal").hidden = !why;
}

function show(id, on) { $(id).hidden = !on; }

function cellName(i) { return "ABCDEFGHIJKLMNOP"[Math.floor(i / 30)] + (i % 30 + 1); }
function cellIndex(name) { return "ABCDEFGHIJKLMNOP".indexOf(name[0]) * 30 + Number(name.slice(1)) - 1; }

// A coloured tile (a board cell, a card swatch, a seat): DOM, never canvas, whose pixels
// privacy-protecting browsers add noise to.
function tile(tag, className, background, title, onclick) {
  const el = document.createElement(tag);
  el.className = className;
  el.style.background = background;
  el.title = title;
  if (onclick) el.onclick = onclick;
  return el;
}

function buildBoard() {
  const grid = $("board");
  grid.replaceChildren();
  board.colors.forEach((color, i) => {
    const name = cellName(i);
    const cell = tile("div", "cell", color, name, () => tapCell(name));
    cell.dataset.cell = name;
    cell.setAttribute("role", "gridcell");
    grid.append(cell);
  });
}

function tapCell(name) {
  const you = view && view.you;
  if (you && you.free && !you.target && view.game.phase === "choose_target") send("choose", { cell: name });
  else send("cursor", { cell: name });
}

function swatch(name, label) {
  const el = tile("div", "swatch", board ? board.colors[cellIndex(name)] : "#000", name);
  el.dataset.cell = name;
  const text = document.createElement("span");
  text.textContent = label || name;
  el.append(text);
  return el;
}

function pawnColor(name) { return board ? board.pawns[name] : "#888"; }

function render() {
  const seated = view.seat !== null;
  $("me").textContent = seated ? `you: ${view.colors[view.seat]}${view.host ? " (host)" : ""}` : "";
  const admittedOrSeated = seated || document.body.dataset.admitted === "1";
  show("join", !seated && !admittedOrSeated);
  show("seats", !seated && admittedOrSeated);
  show("leave", seated);
  show("open-host", view.host);
  if (!view.host) show("host", false);
  show("pin-form", view.host_pin && !view.host && admittedOrSeated);
  renderSeats();
  show("play", seated);
  if (seated) renderGame();
}

function renderSeats() {
  const list = $("seat-list");
  list.replaceChildren();
  view.colors.forEach((color, seat) => {
    const b = tile("button", "seat", pawnColor(color), color, () => send("take", { seat }));
    b.dataset.seat = seat;
    b.disabled = view.taken.includes(seat);
    list.append(b);
  });
}

function renderGame() {
  const g = view.game, you = view.you;
  const scores = $("scores");
  scores.replaceChildren();
  if (!g) {
    $("turn").textContent = "Waiting for the host to start a game.";
    ["secret", "place", "take-back", "confirm", "clue", "pass", "next"].forEach((id) => show(id, false));
    paintBoard(null);
    return;
  }
  g.colors.forEach((color, p) => {
    const s = document.createElement("span");
    s.className = "score" + (g.turn === p ? " turn" : "");
    const dot = document.createElement("span");
    dot.className = "dot";
    dot.style.background = pawnColor(color);
    s.append(dot, String(g.scores[p]));
    s.title = color;
    scores.append(s);
  });
  const me = view.seat, giver = g.giver === me, myTurn = g.turn === me;
  const pendingMine = g.pending && g.pending[0] === me;
  const phase = g.phase;
  let turn = `Round ${g.round} of ${g.rounds}${g.tiebreak ? " (tie-break)" : ""}. `;
  if (phase === "game_over") turn += "Game over: " + g.winners.map((w) => g.colors[w]).join(", ") + " won.";
  else if (phase === "round_over") turn += `The target was ${g.target}.`;
  else if (!you) turn += "You are watching this game.";
  else if (myTurn) turn += giver ? "Your turn, cue giver." : "Your turn: tap a colour, then place.";
  else turn += `${g.colors[g.turn ?? g.giver]}'s turn.`;
  $("turn").textContent = turn;

  const choosing = giver && phase === "choose_target";
  show("secret", !!(you && giver && (you.card || you.free || you.target)));
  $("secret-help").textContent = choosing ? (you.free ? "Tap any colour on the board: that is your target." :
    "Tap one of your card's colours: that is your target.") : "Only you see this.";
  const card = $("card");
  card.replaceChildren();
  if (you && giver && you.card && (choosing || showTarget)) {
    you.card.forEach((name) => {
      const el = swatch(name);
      if (name === you.target) el.classList.add("chosen");
      if (choosing) el.onclick = () => send("choose", { cell: name });
      card.append(el);
    });
  }
  show("show-target", !!(you && giver && you.target));
  $("show-target").textContent = showTarget ? "Hide my target" : "Show my target";
  const target = $("target");
  show("target", !!(you && giver && you.target && showTarget));
  if (you && you.target) {
    target.style.background = board.colors[cellIndex(you.target)];
    const label = document.createElement("span");
    label.textContent = you.target;
    target.replaceChildren(label);
  }

  const guessing = phase === "guess1" || phase === "guess2";
  show("place", guessing && myTurn && !giver && !pendingMine);
  $("place").textContent = g.cursor && myTurn ? `Place on ${g.cursor}` : "Place here";
  show("take-back", !!pendingMine);
  show("confirm", !!pendingMine);
  show("clue", giver && (phase === "clue1" || phase === "clue2" || (myTurn && guessing)));
  show("pass", giver && (phase === "clue2" || (myTurn && phase === "guess1")));
  show("next", phase === "round_over" || view.screen === "tiebreak");
  paintBoard(g);
}

function paintBoard(g) {
  const cells = $("board").children;
  for (const cell of cells) { cell.classList.remove("pawn", "cursor", "target"); cell.style.removeProperty("--pawn"); }
  if (!g) return;
  const pawns = g.pawns.concat(g.pending ? [g.pending] : []);
  for (const [player, name] of pawns) {
    const cell = cells[cellIndex(name)];
    cell.classList.add("pawn");
    cell.style.setProperty("--pawn", pawnColor(g.colors[player]));
  }
  if (g.cursor) cells[cellIndex(g.cursor)].classList.add("cursor");  // the panel's cursor
  if (g.target) cells[cellIndex(g.target)].classList.add("target");
}

function myCursor() {
  const g = view && view.game;
  return g && g.turn === view.seat ? g.cursor : null;
}

document.addEventListener("DOMContentLoaded", () => {
  $("code-form").onsubmit = (e) => { e.preventDefault(); send("join", { code: $("code").value.trim().toUpperCase() }); };
  $("pin-form").onsubmit = (e) => { e.preventDefault(); send("host", { pin: $("pin").value }); };
  $("place").onclick = () => { const c = myCursor(); if (c) send("place", { cell: c }); else refuse("tap a colour first"); };
  $("take-back").onclick = () => send("take_back");
  $("confirm").onclick = () => send("confirm");
  $("clue").onclick = () => send("clue");
  $("pass").onclick = () => send("pass");
  $("next").onclick = () => send("next");
  $("leave").onclick = () => { send("leave"); localStorage.removeItem(TOKEN_KEY); };
  $("show-target").onclick = () => { showTarget = !showTarget; render(); };
  $("open-host").onclick = () => { fillFirstGiver(); $("host").hidden = !$("host").hidden; };
  for (let p = 3; p <= 10; p++) $("h-players").add(new Option(String(p), String(p), p === 4, p === 4));
  $("h-players").onchange = fillFirstGiver;
  fillFirstGiver();
  $("h-start").onclick = () => {
    const first = $("h-first").value;
    send("new_game", { players: Number($("h-players").value), variant: $("h-variant").value,
                       first_giver: first === "" ? null : Number(first) });
    $("host").hidden = true;
  };
  $("h-dim").onclick = () => send("brightness", { delta: -1 });
  $("h-bright").onclick = () => send("brightness", { delta: 1 });
  connect();
});

function fillFirstGiver() {
  const select = $("h-first");
  select.replaceChildren(new Option("random", ""));
  const colors = view ? view.colors : [];
  for (let p = 0; p < Number($("h-players").value); p++) select.add(new Option(colors[p] || `seat ${p}`, String(p)));
}
