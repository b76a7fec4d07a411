// The phone's board: 16 columns (the panel's rows A-P) by 30 rows (its columns 1-30) of DOM
// cells, never a canvas (whose pixels privacy-protecting browsers add noise to). A touch picks the
// nearest cell, a loupe shows it under the finger (and its colour's name, where the phone names
// colours), and a repaint touches only the cells whose marks change. It draws what phone.js knows
// (`board`, `view`, `selected`) and hands a pick back to it (`tapCell`), a cell touched or pointed
// at to be named (`nameCell`).
"use strict";

const ROWS = "ABCDEFGHIJKLMNOP";
function cellName(row, col) { return ROWS[row] + (col + 1); }
function cellAt(name) { return { row: ROWS.indexOf(name[0]), col: Number(name.slice(1)) - 1 }; }

function buildBoard() {
  const grid = $("board"), cols = $("col-labels"), rows = $("row-labels");
  const cells = [];
  for (let col = 0; col < 30; col++) {
    for (let row = 0; row < 16; row++) {
      const el = document.createElement("div");
      el.className = "cell";
      el.dataset.cell = cellName(row, col);
      el.style.background = board.colors[row * 30 + col];
      cells.push(el);
    }
  }
  grid.replaceChildren(...cells);
  painted = new Map();
  const letters = () => [...ROWS].map((letter) => Object.assign(document.createElement("span"), { textContent: letter }));
  cols.replaceChildren(...letters());
  $("col-labels-below").replaceChildren(...letters());
  rows.replaceChildren(...Array.from({ length: 30 }, (_, i) => Object.assign(document.createElement("span"), { textContent: String(i + 1) })));
  if (view) render();
}

function cellEl(name) { const c = cellAt(name); return $("board").children[c.col * 16 + c.row]; }

// The cell nearest to a point of the screen: a tap on a gap, a label or past the edge still picks one.
function nearestCell(x, y) {
  const box = $("board").getBoundingClientRect();
  const col16 = Math.min(15, Math.max(0, Math.floor((x - box.left) / box.width * 16)));
  const row30 = Math.min(29, Math.max(0, Math.floor((y - box.top) / box.height * 30)));
  return cellName(col16, row30);
}

// A finger on the board: the loupe shows the cell under it, large, with its neighbours; the cell
// is picked when the finger lifts (sliding moves the choice, so the exact cell is always reachable).
function watchFinger() {
  const area = $("board-area");
  let down = null;
  area.addEventListener("pointerdown", (event) => {
    if (!board) return;
    down = event.pointerId;
    area.setPointerCapture?.(event.pointerId);
    loupe(nearestCell(event.clientX, event.clientY));
  });
  area.addEventListener("pointermove", (event) => {
    if (event.pointerId === down) loupe(nearestCell(event.clientX, event.clientY));
    else if (down === null && event.pointerType === "mouse" && board && namesOn) nameCell(nearestCell(event.clientX, event.clientY));
  });
  area.addEventListener("pointerup", (event) => {
    if (event.pointerId !== down) return;
    down = null;
    $("loupe").hidden = true;
    tapCell(nearestCell(event.clientX, event.clientY));
  });
  area.addEventListener("pointercancel", () => { down = null; $("loupe").hidden = true; });
}

function loupe(name) {
  const c = cellAt(name), cells = [];
  for (let dc = -1; dc <= 1; dc++) {
    for (let dr = -1; dr <= 1; dr++) {
      const el = document.createElement("div");
      const row = c.row + dr, col = c.col + dc;
      el.style.background = row >= 0 && row < 16 && col >= 0 && col < 30 ? board.colors[row * 30 + col] : "#000";
      if (!dr && !dc) el.className = "centre";
      cells.push(el);
    }
  }
  $("loupe-cells").replaceChildren(...cells);
  $("loupe-name").textContent = name;
  const colour = namesOn ? colourNameOf(name) : null;
  $("loupe-colour").textContent = colour || "";
  $("loupe-colour").hidden = !colour;
  if (namesOn) nameCell(name);
  const box = $("stage").getBoundingClientRect(), cellBox = cellEl(name).getBoundingClientRect();
  $("loupe").style.top = cellBox.top - box.top > box.height / 2 ? "4px" : "auto";
  $("loupe").style.bottom = cellBox.top - box.top > box.height / 2 ? "auto" : "4px";
  $("loupe").hidden = false;
}

// Only the cells whose marks change are touched: a tap repaints two cells, not 480.
let painted = new Map();  // cell name -> "pawn colour|cursor|target|selected" as drawn now

function paintBoard(g, myTarget) {
  if (!$("board").children.length) return;
  const marks = new Map();
  const mark = (name, i, value) => { const m = marks.get(name) || ["", "", "", ""]; m[i] = value; marks.set(name, m); };
  if (g) {
    for (const [player, name] of g.pawns.concat(g.pending ? [g.pending] : [])) mark(name, 0, pawnColor(g.colors[player]));
    if (g.cursor) mark(g.cursor, 1, "cursor");  // the panel's cursor
    if (g.target || myTarget) mark(g.target || myTarget, 2, "target");
    if (selected) mark(selected, 3, "selected");
  }
  for (const name of new Set([...painted.keys(), ...marks.keys()])) {
    const m = marks.get(name), key = m ? m.join("|") : "";
    if ((painted.get(name) || "") === key) continue;
    const cell = cellEl(name);
    cell.classList.toggle("pawn", !!(m && m[0]));
    if (m && m[0]) cell.style.setProperty("--pawn", m[0]); else cell.style.removeProperty("--pawn");
    cell.classList.toggle("cursor", !!(m && m[1]));
    cell.classList.toggle("target", !!(m && m[2]));
    cell.classList.toggle("selected", !!(m && m[3]));
    if (key) painted.set(name, key); else painted.delete(name);
  }
  $("board").dataset.selected = selected || "";
}
