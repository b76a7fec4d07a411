// The phone's page: one websocket to the console; every view comes from the server (which strips
// what this seat may not see), every tap goes back as one small message. The seat token lives in
// localStorage only and travels inside the websocket, never in a URL. Every word comes from the
// language's catalogue (i18n.js); players are named by their colour, a computer player's as one.
"use strict";

const TOKEN_KEY = "hues-seat-token";
const NAMES_KEY = "hues-colour-names";  // "1": this phone names the colours a finger touches
const LEVELS = { child: "computer.level.child", expert: "computer.level.expert" };  // a computer player's level, named
const CURSOR_EVERY_MS = 100;  // a finger sliding over the board sends the cursor at most this often
const $ = (id) => document.getElementById(id);
let ws = null, n = 0, board = null, view = null, retry = 500;
let refusal = null;        // {key, args, why}: shown in the line until the next view that differs
let lastViewText = "";
let selected = null;       // the cell this phone has picked (a guess, or a free target), by name
let showTarget = false, targetOf = null;  // the giver's target on show, and for which round
let menuOpen = false, confirming = false, hostMenuOpened = false;
let playersChosen = false;  // the host changed the player count: seats taken later leave it alone
let cursorTimer = null, cursorDue = null, cursorSentAt = 0;
let myMove = false, wakeLock = null;
let clueAloud = false;     // this giver says clues aloud (a tap) instead of typing them, the default
let clueFor = null;        // the round and phase the clue field was last shown for: a new one starts empty
let computerLang = null;   // the language the host chose for the computer players' clues (null: the phone's)
let namesOn = localStorage.getItem(NAMES_KEY) === "1";
let colourNames = { lang: null, names: null };  // the cells' colour names in the phone's language, once fetched
let namedCell = null;      // the cell whose colour name is shown

function send(t, fields = {}) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ t, n: ++n, ...fields }));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${scheme}//${location.host}/ws`);
  n = 0;
  ws.onopen = () => {
    retry = 500;
    setConn("status.connected");
    const token = localStorage.getItem(TOKEN_KEY);
    if (token) send("resume", { token });
  };
  ws.onmessage = (event) => receive(JSON.parse(event.data));
  ws.onclose = () => {
    setConn("status.reconnecting");
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 4000);
  };
}

let connection = "status.connecting";  // said in the line while the phone is not connected

function setConn(key) {
  connection = key;
  document.body.dataset.connected = key === "status.connected" ? "yes" : "no";
  showLine();
}

function receive(msg) {
  if (msg.t === "board") { board = msg; buildBoard(); }
  else if (msg.t === "seated") { if (msg.token) localStorage.setItem(TOKEN_KEY, msg.token); refusal = null; }
  else if (msg.t === "admitted") { document.body.dataset.admitted = "1"; refusal = null; if (view) render(); }
  else if (msg.t === "refused" || msg.t === "unseated") {  // unseated: this phone lost its colour, and why
    if (msg.key === "seat_gone") { localStorage.removeItem(TOKEN_KEY); document.body.dataset.admitted = ""; }
    if (msg.key === "occupied" || msg.key === "not_your_turn") selected = null;
    refusal = { key: msg.key, args: msg.args || {}, why: msg.why };
    if (view) render(); else showLine();
  }
  else if (msg.t === "view") {
    const text = JSON.stringify(msg);
    if (text !== lastViewText) refusal = null;  // a refusal stays until the next change
    lastViewText = text;
    view = msg;
    render();
  }
}

// --- names -----------------------------------------------------------------------------------

function colorName(color) { return t(`color.${color}`); }
function levelName(level) { return t(LEVELS[level]); }
// A player by their colour; a computer player's seat says so, and its level, so nobody takes it for a guest.
function playerName(p) {
  const color = colorName(view.game ? view.game.colors[p] : view.colors[p]), level = computerIn(p);
  return level ? t("computer.name", { color, level: levelName(level) }) : color;
}
function shortName(p) {  // the same without the level, where room is short (the scores' strip, a list of players)
  const color = colorName(view.game.colors[p]);
  return computerIn(p) ? t("computer.short", { color }) : color;
}
function computerIn(seat) { return (view.game && view.game.computers[seat]) || null; }  // its level, or null for a person
function computerSits(seat) { return view.taken.includes(seat) && !!(view.game && view.game.phase !== "game_over" && computerIn(seat)); }
function phoneHolds(seat) { return view.taken.includes(seat) && !computerSits(seat); }
function pawnColor(name) { return board ? board.pawns[name] : "#888"; }
function cellColor(name) { const c = cellAt(name); return board ? board.colors[c.row * 30 + c.col] : "#000"; }
function textOn(hex) {  // black or white, whichever has the higher contrast on that colour (WCAG 2)
  const v = parseInt(hex.slice(1), 16);
  const lin = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const l = 0.2126 * lin(v >> 16) + 0.7152 * lin((v >> 8) & 255) + 0.0722 * lin(v & 255);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#000" : "#fff";
}

function tapCell(name) {
  const g = view && view.game, you = view && view.you;
  if (!g) return;
  if (you && you.free && !you.target && g.phase === "choose_target" && g.giver === view.seat) {
    pick(name);  // a free target: never sent before Choose (the panel must not show it)
    return;
  }
  if (isMyGuess(g)) pick(name);
  else if (namesOn) return;  // a colour touched to be named, not a move: no refusal in the way of its name
  sendCursor(name);  // out of turn the console says why not
}

function pick(name) {
  selected = name;
  $("place").disabled = $("choose").disabled = false;
  paintBoard(view.game, showTarget && view.you ? view.you.target : null);
  showLine();
}

function sendCursor(name) {
  cursorDue = name;
  if (cursorTimer) return;
  const wait = Math.max(0, cursorSentAt + CURSOR_EVERY_MS - performance.now());
  cursorTimer = setTimeout(() => {
    cursorTimer = null;
    cursorSentAt = performance.now();
    send("cursor", { cell: cursorDue });
  }, wait);
}

// The colours named, for a guest who cannot tell them apart (the phone's own setting): the cell a
// finger touches (or a mouse points at) in one line under the board, "H15: sky blue", as text. The
// names come from the box in the phone's language (/colour-names/<lang>.json), fetched when first wanted.
async function loadNames() {
  const lang = I18n.lang;
  if (colourNames.lang === lang) return;
  colourNames = { lang, names: null };
  try {
    const names = await (await fetch(`/colour-names/${lang}.json`)).json();
    if (colourNames.lang !== lang) return;
    colourNames.names = names;
    if (view) render();
  } catch (error) {
    if (colourNames.lang === lang) colourNames.lang = null;  // asked again at the next touch
  }
}

function colourNameOf(name) {
  const c = cellAt(name);
  return colourNames.names && colourNames.lang === I18n.lang ? colourNames.names[c.row * 30 + c.col] : null;
}

function nameCell(name) {
  namedCell = name;
  renderColourName();
}

function renderColourName() {
  show("colour-name", namesOn);
  if (!namesOn) return;
  loadNames();
  const colour = namedCell ? colourNameOf(namedCell) : null;
  $("colour-name").textContent = !namedCell ? "" :
    colour === null ? t("names.loading", { cell: namedCell }) : t("names.cell", { cell: namedCell, name: colour });
}

function isMyGuess(g) {
  return (g.phase === "guess1" || g.phase === "guess2") && g.turn === view.seat && !(g.pending && g.pending[0] === view.seat);
}

// --- the screens -------------------------------------------------------------------------------

function show(id, on) { $(id).hidden = !on; }

function render() {
  if (!view) return;
  const seated = view.seat !== null, admitted = seated || document.body.dataset.admitted === "1";
  show("join", !admitted);
  show("seats", admitted && !seated);
  show("play", seated);
  show("menu", seated);
  document.body.dataset.screen = !admitted ? "join" : !seated ? "seats" : view.game ? view.game.phase : "waiting";
  if (seated) {
    $("me").textContent = t(view.host ? "me.host" : "me.you", { color: colorName(view.colors[view.seat]) });
    $("me-dot").style.background = pawnColor(view.colors[view.seat]);
    renderGame();
  } else {
    renderSeats();
    closeSheets();
  }
  showLine();
}

// The one line: a refusal while there is one, else what this phone does now.
function showLine() {
  const line = $("line");
  line.classList.toggle("refused", !!refusal);
  line.dataset.key = refusal ? `refused.${refusal.key}` : lineKey().key;
  const text = refusal ? refusalText(refusal) : (() => { const k = lineKey(); return t(k.key, k.args); })();
  line.textContent = text.charAt(0).toLocaleUpperCase(I18n.lang) + text.slice(1);  // "Red is guessing"
}

function refusalText(r) {
  const args = { ...r.args };
  if ("player" in args && view) args.player = playerName(args.player);
  const key = `refused.${r.key}`;
  return key in I18n.messages ? t(key, args) : t("refused.rule");
}

function lineKey() {
  if (connection !== "status.connected" || !view) return { key: connection };
  const seated = view.seat !== null;
  if (!seated) return { key: document.body.dataset.admitted === "1" ? "seats.line" : "join.line" };
  const g = view.game, you = view.you, me = view.seat;
  if (view.screen === "resume") return { key: view.host ? "line.resume_host" : "line.resume" };
  if (!g || view.screen === "idle" || view.screen === "setup") {
    if (view.host) return { key: "line.host_start" };
    return view.host_seat === null ? { key: "line.wait_anyhost" } : { key: "line.wait_host", args: { host: colorName(view.colors[view.host_seat]) } };
  }
  const giver = playerName(g.giver), round = g.round;
  if (g.phase === "game_over") {
    const names = joinNames(g.winners.map(shortName)), points = Math.max(...g.scores);
    return { key: g.winners.length === 1 ? "line.over_one" : "line.over_many", args: { names, points } };
  }
  if (view.screen === "tiebreak") return { key: "line.tiebreak", args: { names: joinNames(g.tied.map(shortName)) } };
  if (g.phase === "round_over" && g.target) return { key: "line.reveal", args: { round, cell: g.target } };
  if (!you) return { key: "line.watching", args: { players: g.players } };
  const giving = g.giver === me;
  switch (g.phase) {
    case "choose_target":
      if (giving) return { key: you.free ? (selected ? "line.choose_free_picked" : "line.choose_free") : "line.choose_card", args: { cell: selected } };
      if (computerIn(g.giver)) return { key: "line.choosing_computer", args: { giver } };
      return { key: g.giver_on_phone ? "line.choosing" : "line.choosing_panel", args: { giver } };
    case "clue1":
      if (giving) return { key: clueAloud ? "line.clue1_giver" : "line.clue1_giver_typed" };
      return { key: computerIn(g.giver) ? "line.clue1_computer" : "line.clue1", args: { giver } };
    case "clue2":
      if (giving) return { key: clueAloud ? "line.clue2_giver" : "line.clue2_giver_typed" };
      return { key: computerIn(g.giver) ? "line.clue2_computer" : "line.clue2", args: { giver } };
    default: {
      if (g.pending && g.pending[0] === me) return { key: "line.pending", args: { cell: g.pending[1] } };
      if (g.turn === me) return selected ? { key: "line.guess_picked", args: { cell: selected } } : { key: "line.guess_me" };
      const player = g.turn === null ? giver : playerName(g.turn);
      return { key: giving ? "line.guess_giver" : "line.guess_other", args: { player } };
    }
  }
}

function renderSeats() {
  const list = $("seat-list");
  list.replaceChildren(...view.colors.map((color, seat) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "seat";
    b.dataset.seat = seat;
    const hex = pawnColor(color);
    b.style.background = hex;
    b.style.color = textOn(hex);
    b.setAttribute("role", "listitem");
    const taken = view.taken.includes(seat), computer = computerSits(seat) ? computerIn(seat) : null;
    b.disabled = taken;
    b.append(colorName(color));
    const state = computer ? t("seats.computer", { level: levelName(computer) }) : t("seats.taken");
    if (taken) b.append(Object.assign(document.createElement("span"), { className: "state", textContent: state }));
    b.onclick = () => send("take", { seat });
    return b;
  }));
}

function renderGame() {
  const g = view.game, you = view.you, me = view.seat;
  if (g && (g.phase !== "choose_target" || g.giver !== me) && !isMyGuess(g)) selected = null;
  renderScores(g);
  const round = g ? `${g.round}:${g.tiebreak}` : null;
  if (targetOf !== round) { showTarget = false; targetOf = round; }  // a new round starts hidden
  const giving = !!(g && you && g.giver === me);
  const phase = g ? g.phase : null, guessing = phase === "guess1" || phase === "guess2";
  const pendingMine = !!(g && g.pending && g.pending[0] === me);

  // the card: the giver's four colours while choosing (cards), on the giver's phone only
  const card = $("card");
  const choosingCard = giving && phase === "choose_target" && you.card && !you.free;
  card.replaceChildren(...(choosingCard ? you.card.map((name) => {
    const el = document.createElement("button");
    el.type = "button";
    el.className = "swatch";
    el.dataset.cell = name;
    el.style.background = cellColor(name);
    el.append(Object.assign(document.createElement("span"), { textContent: name }));
    const colour = namesOn ? colourNameOf(name) : null;
    if (colour) el.append(Object.assign(document.createElement("span"), { className: "swatch-name", textContent: colour }));
    el.onclick = () => send("choose", { cell: name });
    return el;
  }) : []));
  show("card-sheet", !!choosingCard);

  // the target: hidden until asked for, a new round hides it again
  const target = giving && you.target ? you.target : null;
  show("show-target", !!target);
  $("show-target").textContent = t(showTarget ? "btn.hide_target" : "btn.show_target");
  $("show-target").setAttribute("aria-pressed", String(showTarget));
  show("target-sheet", !!(target && showTarget));
  $("target").style.background = target ? cellColor(target) : "transparent";
  $("target-name").textContent = target && showTarget ? t("target.label", { cell: target }) : "";

  // the round's points, on every phone, once the panel reveals the target; the winners at the end
  const revealed = !!(g && (g.last_round_points.length || phase === "game_over"));
  renderPoints(g, revealed);

  const freeChoosing = giving && phase === "choose_target" && you.free && !you.target;
  show("choose", freeChoosing);
  $("choose").disabled = !selected;
  show("place", guessing && g.turn === me && !giving && !pendingMine);
  $("place").disabled = !selected;
  show("take-back", pendingMine);
  show("confirm", pendingMine);
  renderClues(g);
  const cluing = giving && (phase === "clue1" || phase === "clue2");
  renderClueForm(g, cluing && !clueAloud);
  show("clue", cluing && clueAloud);
  show("typed", cluing && clueAloud);
  show("aloud", cluing && !clueAloud);
  show("pass", giving && phase === "clue2");
  show("next", !!(g && you && ((phase === "round_over" && view.screen === "reveal") || view.screen === "tiebreak")));
  show("new-game", !!(view.host && (!g || phase === "game_over")));
  renderColourName();
  renderMenu(g);
  paintBoard(g, target && showTarget ? target : null);
  nudge(g, giving, pendingMine);
  keepAwake(g);
}

function renderScores(g) {
  const scores = $("scores");
  if (!g) { scores.replaceChildren(); return; }
  const round = Object.assign(document.createElement("span"), { className: "score round" });
  round.setAttribute("role", "listitem");
  round.textContent = g.tiebreak ? t("scores.tiebreak") : t("scores.round", { round: g.round, rounds: g.rounds });
  scores.replaceChildren(round, ...g.colors.map((color, p) => {
    const s = document.createElement("span");
    s.className = "score" + (g.turn === p ? " turn" : "");
    s.setAttribute("role", "listitem");
    const dot = Object.assign(document.createElement("span"), { className: "dot" });
    dot.style.background = pawnColor(color);
    s.append(dot, `${shortName(p)} ${g.scores[p]}`);
    return s;
  }));
}

// A clue's words as given: a guest's text, so only ever textContent; a spoken one says so.
function clueWords(clue, which) {
  const el = document.createElement("span");
  const written = clue.words.length > 0;
  el.className = "clue-words" + (which === 1 ? " second" : "") + (written ? "" : " aloud");
  el.textContent = written ? clue.words.join(" ") : t("clues.aloud");
  if (written) el.lang = clue.lang;
  return el;
}

// The round's clues on every phone, from the moment each is given until the next round.
function renderClues(g) {
  const clues = g && g.phase !== "choose_target" ? g.clues : [];
  show("clue-now", clues.length > 0);
  $("clue-now").replaceChildren(...clues.map(clueWords));
}

// The giver's clue, typed: a field and a big Send (the default); "say it aloud" keeps the tap.
function renderClueForm(g, typing) {
  show("clue-sheet", typing);
  const field = $("clue-text"), round = g ? `${g.round}:${g.phase}` : null;
  if (clueFor !== round) { field.value = ""; clueFor = round; }
  if (!typing) return;
  $("clue-label").textContent = t(g.phase === "clue1" ? "clue.label1" : "clue.label2");
  $("clue-send").disabled = field.value.trim() === "";
}

// At the reveal, the target beside both clues (the second may have been passed).
function renderRevealClues(g, over) {
  const box = $("reveal-clues"), on = !over && !!g.target;
  show("reveal-clues", on);
  if (!on) return;
  const swatch = Object.assign(document.createElement("span"), { className: "reveal-target" });
  swatch.style.background = cellColor(g.target);
  const label = (key) => Object.assign(document.createElement("span"), { className: "which", textContent: t(key) });
  const second = g.clues[1] ? clueWords(g.clues[1], 1)
    : Object.assign(document.createElement("span"), { className: "clue-words aloud", textContent: t("clues.passed") });
  box.replaceChildren(swatch, Object.assign(document.createElement("span"), { textContent: t("target.label", { cell: g.target }) }),
    label("clues.first"), g.clues[0] ? clueWords(g.clues[0], 0) : label("clues.aloud"), label("clues.second"), second);
}

function renderPoints(g, revealed) {
  show("points-sheet", revealed);
  if (!revealed) return;
  const over = g.phase === "game_over";
  $("points-title").textContent = over ? t("points.final") : t("points.title", { round: g.round });
  renderRevealClues(g, over);
  const rows = g.colors.map((color, p) => {
    const row = document.createElement("div");
    row.className = "points-row" + (over && g.winners.includes(p) ? " winner" : "");
    row.setAttribute("role", "listitem");
    const dot = Object.assign(document.createElement("span"), { className: "dot" });
    dot.style.background = pawnColor(color);
    const gain = over ? "" : t("points.gain", { points: g.last_round_points[p] });
    row.append(dot, Object.assign(document.createElement("span"), { textContent: playerName(p) }),
      Object.assign(document.createElement("span"), { className: "gain", textContent: gain }),
      Object.assign(document.createElement("span"), { className: "total", textContent: t("points.total", { total: g.scores[p] }) }));
    return row;
  });
  $("points").replaceChildren(...rows);
}

// The menu: the host's game controls (start, abandon with a confirm, brightness, the clue check,
// the computer players' pace), naming the colours, leaving the seat, the host PIN. For the host
// with no game it opens by itself.
function renderMenu(g) {
  const under = !!(g && g.phase !== "game_over" && view.screen !== "idle" && view.screen !== "setup" && view.screen !== "resume");
  const setupNow = view.host && !under;
  if (setupNow && !hostMenuOpened) { menuOpen = true; hostMenuOpened = true; fillSetup(); }
  if (!setupNow && hostMenuOpened) { hostMenuOpened = false; menuOpen = false; }  // the game began: out of its way
  show("menu-sheet", menuOpen && !confirming);
  show("confirm-sheet", confirming && view.host && under);
  if (confirming && !(view.host && under)) confirming = false;
  show("host-setup", setupNow);
  show("host-game", view.host && under);
  show("host-bright", view.host);
  show("h-check", view.host);
  $("h-check").setAttribute("aria-pressed", String(view.clue_check));
  $("h-check").textContent = t(view.clue_check ? "host.clue_check.on" : "host.clue_check.off");
  // the pace while a game has computer players, or while the host sets one up with some
  show("h-pace", view.host && (under ? !!g.computers.some(Boolean) : setupNow && Number($("h-computers").value) > 0));
  $("h-pace").setAttribute("aria-pressed", String(view.fast_computers));
  $("h-pace").textContent = t(view.fast_computers ? "host.pace.fast" : "host.pace.person");
  $("names-switch").setAttribute("aria-pressed", String(namesOn));
  $("names-switch").textContent = t(namesOn ? "names.on" : "names.off");
  show("pin-form", view.host_pin && !view.host);
  if (setupNow && !playersChosen && $("h-players").value !== String(seatedPlayers())) fillSetup();  // a phone sat down
  if (setupNow && $("h-computers").options.length !== mostComputers() + 1) fillComputers();  // or stood up
  if (setupNow) describePlayers();
}

function seatedPlayers() {
  // the players a game needs so that every seated phone plays (3 to 10)
  const top = view.taken.length ? Math.max(...view.taken) + 1 : 0;
  return Math.min(10, Math.max(3, view.taken.length, top));
}

function fillSetup() {
  const players = $("h-players");
  players.replaceChildren(...Array.from({ length: 8 }, (_, i) => new Option(String(i + 3), String(i + 3))));
  players.value = String(seatedPlayers());
  const lang = $("h-clang");
  lang.replaceChildren(...I18n.languages.map((l) => Object.assign(new Option(l.name, l.code), { lang: l.code })));
  lang.value = computerLang || I18n.lang;
  fillComputers();
}

// The computer players: from none to all the game's seats no phone holds, always leaving one
// seat a person's (the console seats them in the last of those seats: `Seating.computer_seats`).
function mostComputers() {
  const players = Number($("h-players").value);
  let free = 0;
  for (let seat = 0; seat < players; seat++) if (!phoneHolds(seat)) free++;
  return Math.min(players - 1, free);
}

function fillComputers() {
  const select = $("h-computers"), most = mostComputers(), kept = Math.min(Number(select.value) || 0, most);
  select.replaceChildren(...Array.from({ length: most + 1 }, (_, i) => new Option(String(i), String(i))));
  select.value = String(kept);
  fillFirstGiver();
}

// The seats the computer players being set up will take: the game's last seats no phone holds.
function computerSeats() {
  const seats = [];
  let count = Number($("h-computers").value);
  for (let seat = Number($("h-players").value) - 1; seat >= 0 && count > 0; seat--) {
    if (!phoneHolds(seat)) { seats.push(seat); count--; }
  }
  return seats;
}

function setupName(seat, computers) {
  const color = colorName(view.colors[seat]);
  return computers.includes(seat) ? t("computer.name", { color, level: levelName($("h-level").value) }) : color;
}

function fillFirstGiver() {
  const select = $("h-first"), kept = select.value, computers = computerSeats();
  select.replaceChildren(new Option(t("host.first.random"), ""));
  for (let p = 0; p < Number($("h-players").value); p++) select.add(new Option(setupName(p, computers), String(p)));
  if ([...select.options].some((o) => o.value === kept)) select.value = kept;
  const some = computers.length > 0;
  show("h-level-field", some);
  show("h-clang-field", some);
}

function describePlayers() {
  const count = Number($("h-players").value), computers = computerSeats();
  const playing = view.colors.slice(0, count).map((color, seat) => setupName(seat, computers));
  const watching = view.taken.filter((s) => s >= count).map((s) => colorName(view.colors[s]));
  $("h-who").textContent = t("host.playing", { names: joinNames(playing) }) +
    (watching.length ? " " + t("host.watching", { names: joinNames(watching) }) : "");
}

function closeSheets() { menuOpen = false; confirming = false; }

// A buzz when it becomes this phone's move (where the phone can), and the screen kept awake while a game runs.
function nudge(g, giving, pendingMine) {
  const now = !!(g && view.you && ((isMyGuess(g) && !pendingMine) ||
    (giving && ((g.phase === "choose_target" && g.giver_on_phone) || g.phase === "clue1" || g.phase === "clue2"))));
  if (now && !myMove && navigator.vibrate) navigator.vibrate([120, 60, 120]);
  myMove = now;
}

async function keepAwake(g) {
  const playing = !!(g && g.phase !== "game_over");
  if (playing && !wakeLock && navigator.wakeLock && document.visibilityState === "visible") {
    wakeLock = "asking";
    try {
      wakeLock = await navigator.wakeLock.request("screen");
      wakeLock.addEventListener?.("release", () => { wakeLock = null; });
    } catch (error) { wakeLock = null; }
  } else if (!playing && wakeLock && wakeLock !== "asking") {
    wakeLock.release();
    wakeLock = null;
  }
}

document.addEventListener("visibilitychange", () => { if (view && document.visibilityState === "visible") keepAwake(view.game); });

document.addEventListener("DOMContentLoaded", async () => {
  await I18n.start($("lang"), () => { if (view) { fillSetup(); render(); } else showLine(); });
  showLine();
  watchFinger();
  $("code-form").onsubmit = (e) => { e.preventDefault(); send("join", { code: $("code").value.trim().toUpperCase() }); };
  $("pin-form").onsubmit = (e) => { e.preventDefault(); send("host", { pin: $("pin").value }); };
  $("place").onclick = () => { if (selected) send("place", { cell: selected }); };
  $("choose").onclick = () => { if (selected) { send("choose", { cell: selected }); selected = null; } };
  $("take-back").onclick = () => send("take_back");
  $("confirm").onclick = () => send("confirm");
  $("clue").onclick = () => send("clue");
  $("clue-form").onsubmit = (e) => {
    e.preventDefault();
    const text = $("clue-text").value;
    if (text.trim()) send("clue", { text, lang: I18n.lang });
  };
  $("clue-text").oninput = () => { $("clue-send").disabled = $("clue-text").value.trim() === ""; };
  $("aloud").onclick = () => { clueAloud = true; render(); };
  $("typed").onclick = () => { clueAloud = false; render(); $("clue-text").focus(); };
  $("h-check").onclick = () => send("clue_check", { on: !view.clue_check });
  $("h-pace").onclick = () => send("computer_pace", { fast: !view.fast_computers });
  $("names-switch").onclick = () => {
    namesOn = !namesOn;
    if (namesOn) localStorage.setItem(NAMES_KEY, "1"); else localStorage.removeItem(NAMES_KEY);
    render();
  };
  $("pass").onclick = () => send("pass");
  $("next").onclick = () => send("next");
  $("new-game").onclick = () => { menuOpen = true; fillSetup(); render(); };
  $("leave").onclick = () => { send("leave"); localStorage.removeItem(TOKEN_KEY); closeSheets(); };
  $("show-target").onclick = () => { showTarget = !showTarget; render(); };
  $("menu").onclick = () => { menuOpen = !menuOpen; confirming = false; if (menuOpen) fillSetup(); render(); };
  $("menu-close").onclick = () => { closeSheets(); render(); };
  $("h-players").onchange = () => { playersChosen = true; fillComputers(); render(); };
  $("h-computers").onchange = $("h-level").onchange = () => { fillFirstGiver(); render(); };
  $("h-clang").onchange = () => { computerLang = $("h-clang").value; };
  $("h-start").onclick = () => {
    const first = $("h-first").value;
    send("new_game", { players: Number($("h-players").value), variant: $("h-variant").value,
                       first_giver: first === "" ? null : Number(first), computers: Number($("h-computers").value),
                       level: $("h-level").value, lang: $("h-clang").value });
    playersChosen = false;
    closeSheets();
  };
  $("h-abandon").onclick = () => { confirming = true; render(); $("confirm-no").focus(); };
  $("confirm-no").onclick = () => { closeSheets(); render(); };  // keep playing: back to the game
  $("confirm-yes").onclick = () => { send("abandon"); closeSheets(); render(); };
  $("h-dim").onclick = () => send("brightness", { delta: -1 });
  $("h-bright").onclick = () => send("brightness", { delta: 1 });
  connect();
});
