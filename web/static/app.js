/* meldcam's pages: small vanilla JavaScript, no framework, no network but this server. */
"use strict";

const T = JSON.parse(document.getElementById("i18n").textContent);
const t = (key) => T[key] || key;
const pageData = () => {
  const node = document.getElementById("page-data");
  return node ? JSON.parse(node.textContent) : {};
};
const $ = (selector, root = document) => root.querySelector(selector);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value === true) node.setAttribute(key, "");
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
};

async function api(method, url, body) {
  const options = { method, headers: { Accept: "application/json" } };
  if (body instanceof FormData) options.body = body;
  else if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(url, options);
  let data = null;
  try {
    data = await response.json();
  } catch (_) {
    data = { error: `${response.status} ${response.statusText}` };
  }
  if (response.status === 401) {
    location.href = `/login?next=${encodeURIComponent(location.pathname)}`;
  }
  if (!response.ok) {
    const error = new Error((data && data.error) || t("error.generic"));
    error.status = response.status;
    error.data = data;
    throw error;
  }
  return data;
}

function toast(message) {
  const node = $("#toast");
  node.textContent = message;
  node.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { node.hidden = true; }, 2500);
}

const CARD_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const COLOURS = { K: "black", R: "red", B: "blue", Y: "yellow" };

function pieceLabel(code) {
  if (code === "JK") return "★";
  const suit = code.slice(-1);
  if (SUITS[suit]) return code.slice(0, -1) + SUITS[suit];
  return code.slice(1);
}

/* A piece's chip; `doubt` marks a piece the scanner read uncertainly (`uncertain` of /api/scan). */
function pieceChip(code, attrs = {}, doubt = false) {
  const suit = code.slice(-1);
  let cls = "chip";
  if (code === "JK") cls += " joker";
  else if (SUITS[suit]) cls += suit === "H" || suit === "D" ? " red" : " black";
  else cls += " tile-" + (COLOURS[code[0]] || "black");
  if (doubt) {
    cls += " doubt";
    attrs = { title: t("scan.doubt_piece"), ...attrs };
  }
  return el("button", { type: "button", class: cls, "data-code": code, ...attrs }, pieceLabel(code));
}

/* The indexes of a scan's pieces it read uncertainly, as a set. */
const uncertainOf = (scan) => new Set((scan && scan.uncertain) || []);

/* Says, chip by chip, whether a code is one of `doubts`: each doubtful code marks one chip. */
function doubtMarker(doubts) {
  const left = [...doubts];
  return (code) => {
    const k = left.indexOf(code);
    if (k >= 0) left.splice(k, 1);
    return k >= 0;
  };
}

/* What a scan says of its photo that is worth taking it again for (the flags of /api/scan), in
   the order the notices are shown; each is a p.notice classed by its flag, hyphenated. */
const SCAN_NOTICES = ["shaken", "afar", "low_resolution", "colourless"];
const scanNotices = (scan) => (scan ? SCAN_NOTICES.filter((flag) => scan[flag]) : []);
const noticeNodes = (flags) =>
  flags.map((flag) => el("p", { class: `notice ${flag.replace("_", "-")}` }, t(`scan.${flag}`)));

function splitCodes(text) {
  return text.replace(/,/g, " ").split(/\s+/).map((s) => s.trim().toUpperCase()).filter(Boolean);
}

/* A rule problem in the page's language: its translated title, then the detail (codes). */
function problemText(problem) {
  const title = T[`problem.${problem.code}`];
  if (!title || document.documentElement.lang === "en") return problem.message;
  return `${title}: ${problem.message}`;
}

function verdictText(verdict) {
  if (!verdict) return "";
  if (!verdict.valid) return verdict.problems.map(problemText).join("; ");
  const parts = [t(`kind.${verdict.kind}`)];
  if (verdict.burraco) parts.push(t(`burraco.${verdict.burraco}`));
  parts.push(`${verdict.points} ${t("points")}`);
  if (verdict.bonus) parts.push(`+${verdict.bonus} ${t("bonus")}`);
  const wilds = verdict.reading.filter((r) => r.wild).map((r) => `${r.piece}=${r.as}`);
  if (wilds.length) parts.push(wilds.join(" "));
  return parts.join(" · ");
}

/* ------------------------------------------------------------------ new game */

function newGamePage() {
  const { presets, options, choices } = pageData();
  const form = $("#new-game-form");
  const preset = $("#preset");
  const names = $("#side-names");
  const target = $("#target");
  const optionsBox = $("#options");
  let edited = {};

  function renderOptions() {
    const rules = presets[preset.value];
    optionsBox.replaceChildren();
    for (const key of options) {
      const value = key in edited ? edited[key] : rules[key];
      let input;
      if (choices[key]) {  // one of a few values (null: none)
        input = el("select", { name: key }, ...choices[key].map((c) =>
          el("option", { value: c === null ? "" : c, selected: c === value }, c === null ? "—" : c)));
      } else if (typeof rules[key] === "boolean") {
        input = el("input", { type: "checkbox", name: key, checked: value === true });
      } else if (typeof rules[key] === "number" || rules[key] === null) {
        input = el("input", { type: "number", name: key, value: value === null ? "" : value, inputmode: "numeric" });
      } else if (Array.isArray(rules[key])) {
        input = el("input", { type: "text", name: key, value: value.join(",") });
      } else {
        input = el("input", { type: "text", name: key, value: value });
      }
      input.addEventListener("change", () => {
        if (choices[key]) edited[key] = input.value === "" ? null : input.value;
        else if (input.type === "checkbox") edited[key] = input.checked;
        else if (Array.isArray(rules[key])) edited[key] = input.value.split(",").map(Number).filter((n) => n);
        else if (input.type === "number") edited[key] = input.value === "" ? null : Number(input.value);
        else edited[key] = input.value;
      });
      optionsBox.append(el("label", { class: "option" }, el("code", {}, key), input));
    }
    target.value = rules.target || "";
  }

  function renderNames() {
    const players = Number(form.players.value);
    const teams = players === 4 && !preset.value.startsWith("rummy");
    $("#teams-note").hidden = !teams;
    const count = teams ? 2 : players;
    const old = [...names.querySelectorAll("input")].map((i) => i.value);
    names.replaceChildren();
    for (let i = 0; i < count; i++) {
      names.append(el("label", {}, `${t("new.side")} ${i + 1}`,
        el("input", { type: "text", name: "side", required: true, maxlength: "40", value: old[i] || "" })));
    }
  }

  preset.addEventListener("change", () => { edited = {}; renderOptions(); renderNames(); });
  for (const radio of form.players) radio.addEventListener("change", renderNames);
  renderOptions();
  renderNames();

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const sides = [...names.querySelectorAll("input")].map((i) => i.value.trim());
    const players = Number(form.players.value);
    const body = {
      rules: { preset: preset.value, ...edited },
      sides,
      players: players === 4 && sides.length === 2 ? 4 : sides.length,
    };
    if (target.value) body.target = Number(target.value);
    if (form.name.value.trim()) body.name = form.name.value.trim();
    try {
      const created = await api("POST", "/api/games", body);
      location.href = `/games/${created.id}`;
    } catch (error) {
      const node = $("#form-error");
      node.textContent = error.message;
      node.hidden = false;
    }
  });
}

/* ---------------------------------------------------------------------- game */

function gamePage() {
  const { game } = pageData();
  for (const button of document.querySelectorAll(".delete-round")) {
    button.addEventListener("click", async () => {
      if (!confirm(t("game.confirm_delete"))) return;
      try {
        await api("DELETE", `/api/games/${game.id}/rounds/${button.dataset.number}`);
        location.reload();
      } catch (error) {
        toast(error.message);
      }
    });
  }
}

/* --------------------------------------------------------------------- round */

function svgEl(svg, tag, attrs = {}, text = null) {
  const node = document.createElementNS(svg.namespaceURI, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

/* Convex hull (monotone chain) of [x, y] points, counter-clockwise. */
function convexHull(points) {
  const p = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (p.length < 3) return p;
  const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const half = (list) => {
    const out = [];
    for (const q of list) {
      while (out.length >= 2 && cross(out[out.length - 2], out[out.length - 1], q) <= 0) out.pop();
      out.push(q);
    }
    out.pop();
    return out;
  };
  return half(p).concat(half([...p].reverse()));
}

/* A polygon pushed out from its centre by `by` pixels, so an outline clears the boxes. */
function grow(polygon, by) {
  const cx = polygon.reduce((a, q) => a + q[0], 0) / polygon.length;
  const cy = polygon.reduce((a, q) => a + q[1], 0) / polygon.length;
  return polygon.map(([x, y]) => {
    const d = Math.hypot(x - cx, y - cy) || 1;
    return [x + ((x - cx) / d) * by, y + ((y - cy) / d) * by];
  });
}

/* The mark a meld gets on the photo: its number (as in the list below) and valid or not. */
function meldMark(m, verdict) {
  return `${m + 1}${verdict ? (verdict.valid ? " ✓" : " ✗") : ""}`;
}

function roundPage() {
  const { game, number } = pageData();
  const rules = game.rules;
  const tiles = rules.pieces === "tiles";
  const handsPerSide = Math.max(1, Math.round(game.players / game.sides.length));
  const existing = number ? game.rounds[number - 1] : null;
  const state = { sides: [], photos: existing ? [...existing.photos] : [] };

  for (const name of game.sides) {
    const given = existing ? existing.sides.find((s) => s.name === name) : null;
    const pieces = [];
    const melds = [];
    for (const meld of (given && given.melds) || []) {
      melds.push(meld.map((code) => pieces.push({ code, box: null }) - 1));
    }
    let hands = given ? (given.hands || [given.hand || []]) : [];
    while (hands.length < handsPerSide) hands.push([]);
    state.sides.push({
      name, pieces, melds, hands,
      took_pot: given ? !!given.took_pot : false,
      closed: given ? !!given.closed : false,
      photo: null,
      away: [],
      found: [],
      notices: [],
    });
  }

  const sidesBox = $("#sides");
  let verdicts = [];

  /* A re-opened round shows its photos again with what the scanner read then (for audit). */
  async function reopenPhotos() {
    for (const id of existing ? existing.photos : []) {
      try {
        const photo = await api("GET", `/api/games/${game.id}/photos/${id}`);
        const side = state.sides.find((x) => x.name === photo.side);
        if (!side || side.photo) continue;
        side.photo = photo;
        side.scanned = photo.scan ? photo.scan.pieces : [];
      } catch (error) {
        toast(error.message);
      }
    }
    if (existing && existing.photos.length) render();
  }

  function payload() {
    return state.sides.map((side) => {
      const out = {
        name: side.name,
        melds: side.melds.filter((m) => m.length).map((m) => m.map((i) => side.pieces[i].code)),
        took_pot: side.took_pot,
        closed: side.closed,
      };
      if (side.hands.length > 1) out.hands = side.hands;
      else out.hand = side.hands[0];
      return out;
    });
  }

  function unassigned(side) {
    const used = new Set(side.melds.flat());
    return side.pieces.map((p, i) => i).filter((i) => !used.has(i) && !side.pieces[i].deleted);
  }

  function render() {
    sidesBox.replaceChildren(...state.sides.map(renderSide));
    scheduleScore();
  }

  function renderSide(side, s) {
    const box = el("section", { class: "side-card", "data-side": side.name });
    box.append(el("h2", {}, side.name));
    const file = el("input", { type: "file", accept: "image/*", capture: "environment", class: "photo-input", "data-side": side.name });
    file.addEventListener("change", () => file.files[0] && uploadPhoto(s, file.files[0]));
    box.append(el("label", { class: "button file" }, t("round.photo"), file));
    if (side.busy) box.append(el("p", { class: "progress" }, el("span", { class: "spinner" }), t("round.reading")));
    if (side.error) box.append(el("p", { class: "error" }, side.error));
    box.append(...noticeNodes(side.notices));
    if (side.pieces.some((piece) => piece.uncertain && !piece.deleted)) {
      box.append(el("p", { class: "notice doubt" }, t("scan.doubt")));
    }
    if (side.photo) box.append(renderPhoto(side, s));

    box.append(el("h3", {}, t("round.melds")));
    side.melds.forEach((meld, m) => {
      if (!meld.length) return;
      const verdict = (verdicts[s] || [])[side.melds.filter((x) => x.length).indexOf(meld)];
      const row = el("div", { class: "meld " + (verdict ? (verdict.valid ? "valid" : "invalid") : ""), "data-meld": m });
      const chips = el("div", { class: "chips" });
      meld.forEach((i, k) => chips.append(pieceChip(side.pieces[i].code, {
        onclick: () => openPicker(s, i, m, k),
      }, side.pieces[i].uncertain)));
      chips.append(el("button", { type: "button", class: "chip add", "aria-label": t("round.add_piece"),
        onclick: () => openPicker(s, null, m, meld.length) }, "+"));
      chips.prepend(el("span", { class: "meld-no" }, String(m + 1)));
      row.append(chips, el("p", { class: "verdict-line small" }, verdictText(verdict)));
      if (m < side.melds.length - 1) {
        row.append(el("button", { type: "button", class: "link small", onclick: () => mergeMelds(s, m) }, t("round.merge")));
      }
      box.append(row);
    });
    const away = (side.away || []).filter((meld) => side.melds.includes(meld) && meld.length);
    if (away.length) {
      const other = state.sides[1 - s].name;
      box.append(el("div", { class: "meld away" },
        el("p", { class: "small" }, `${t("round.facing_away")}: ${away.map((meld) => meld.map((i) => side.pieces[i].code).join(" ")).join(" · ")}`),
        el("button", { type: "button", class: "give-away", onclick: () => giveAway(s) }, `${t("round.give_to")} ${other}`)));
    }
    const found = foundHands(side);
    for (const hand of found) {
      const chips = el("div", { class: "chips" });
      for (const i of hand) chips.append(pieceChip(side.pieces[i].code, { onclick: () => openPicker(s, i, null, null) }, side.pieces[i].uncertain));
      box.append(el("div", { class: "meld found-hand" },
        el("p", { class: "small muted" }, t("round.found_hand")), chips,
        el("button", { type: "button", class: "to-hand", onclick: () => countAsHand(s, hand) }, t("round.to_hand"))));
    }
    const inFound = new Set(found.flat());
    const loose = unassigned(side).filter((i) => !inFound.has(i));
    if (loose.length) {
      const row = el("div", { class: "meld loose" }, el("p", { class: "small muted" }, t("round.unassigned")));
      const chips = el("div", { class: "chips" });
      for (const i of loose) chips.append(pieceChip(side.pieces[i].code, { onclick: () => openPicker(s, i, null, null) }, side.pieces[i].uncertain));
      row.append(chips);
      box.append(row);
    }
    const typed = el("input", { type: "text", placeholder: tiles ? "R5 R6 JK" : "7H 8H JK", autocapitalize: "characters", autocomplete: "off", class: "type-meld" });
    const add = el("button", { type: "button", class: "add-meld" }, t("round.add"));
    add.addEventListener("click", () => {
      const codes = splitCodes(typed.value);
      if (!codes.length) return;
      side.melds.push(codes.map((code) => side.pieces.push({ code, box: null }) - 1));
      render();
    });
    box.append(el("div", { class: "row" }, el("label", { class: "grow" }, t("round.add_meld"), typed), add));

    side.hands.forEach((hand, h) => {
      const input = el("input", { type: "text", value: hand.join(" "), autocapitalize: "characters", autocomplete: "off", class: "hand-input" });
      input.addEventListener("change", () => { side.hands[h] = splitCodes(input.value); scheduleScore(); });
      const shot = el("input", { type: "file", accept: "image/*", capture: "environment", class: "hand-photo" });
      shot.addEventListener("change", () => shot.files[0] && uploadHand(s, h, shot.files[0]));
      box.append(el("div", { class: "row" },
        el("label", { class: "grow" }, h === 0 ? t("round.hand") : t("round.hand2"), input),
        el("label", { class: "button file", title: t("round.hand_photo") }, t("round.hand_photo"), shot)));
    });
    if (rules.pot) {
      const pot = el("input", { type: "checkbox", checked: side.took_pot, class: "took-pot" });
      pot.addEventListener("change", () => { side.took_pot = pot.checked; scheduleScore(); });
      box.append(el("label", { class: "inline" }, pot, t("round.took_pot")));
    }
    const closed = el("input", { type: "checkbox", checked: side.closed, class: "closed" });
    closed.addEventListener("change", () => {
      state.sides.forEach((other) => { other.closed = false; });
      side.closed = closed.checked;
      render();
    });
    box.append(el("label", { class: "inline" }, closed, t("round.closed")));
    return box;
  }

  function renderPhoto(side, s) {
    const { url, width, height } = side.photo;
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("class", "overlay");
    const stroke = Math.max(2, width / 400);
    const meldOf = new Map();
    side.melds.forEach((meld, m) => meld.forEach((i) => meldOf.set(i, m)));
    /* A piece's box and label; `kind` is its class after "box". */
    const boxed = (piece, kind) => {
      const [x1, y1, x2, y2] = piece.box;
      const doubt = piece.uncertain ? " doubt" : "";
      const g = svgEl(svg, "g", { class: `box ${kind}${doubt}`, "data-code": piece.code });
      g.append(svgEl(svg, "rect", { x: x1, y: y1, width: x2 - x1, height: y2 - y1, "stroke-width": stroke }),
        svgEl(svg, "text", { x: x1, y: Math.max(y1 - stroke, stroke * 8), "font-size": Math.max(14, width / 45) }, pieceLabel(piece.code) + (doubt ? "?" : "")));
      svg.append(g);
      return g;
    };
    for (const piece of side.scanned || []) boxed(piece, "scanned");  // re-opened: read then
    const shown = side.melds.filter((x) => x.length);
    side.melds.forEach((meld, m) => {
      const corners = [];
      for (const i of meld) {
        const piece = side.pieces[i];
        if (!piece.box || piece.deleted) continue;
        const [x1, y1, x2, y2] = piece.box;
        corners.push([x1, y1], [x2, y1], [x2, y2], [x1, y2]);
      }
      if (!corners.length) return;
      const hull = grow(convexHull(corners), stroke * 4);
      const verdict = (verdicts[s] || [])[shown.indexOf(meld)];
      const judged = verdict ? (verdict.valid ? "valid" : "invalid") : "";
      const top = hull.reduce((a, b) => (b[1] < a[1] ? b : a));
      const outline = svgEl(svg, "g", { class: `meld-outline ${judged}`, "data-meld": m });
      outline.append(
        svgEl(svg, "polygon", { points: hull.map((q) => q.join(",")).join(" "), "stroke-width": stroke * 1.5 }),
        svgEl(svg, "text", { x: top[0], y: Math.max(top[1] - stroke * 2, stroke * 10), "font-size": Math.max(16, width / 35) }, meldMark(m, verdict)),
        svgEl(svg, "title", {}, verdictText(verdict)));
      svg.append(outline);
    });
    side.pieces.forEach((piece, i) => {
      if (!piece.box || piece.deleted) return;
      const g = boxed(piece, meldOf.has(i) ? `meld-${meldOf.get(i) % 6}` : "loose");
      g.addEventListener("click", () => openPicker(s, i, meldOf.get(i) ?? null, null));
    });
    return el("div", { class: "photo" }, el("img", { src: url, alt: side.name }), svg);
  }

  /* Send a photo for a side; `use` takes the stored photo and its scan (null without a model). */
  async function sendPhoto(s, file, use) {
    const side = state.sides[s];
    side.busy = true;
    side.error = null;
    render();
    const form = new FormData();
    form.append("photo", file);
    form.append("side", side.name);
    form.append("kind", tiles ? "tiles" : "cards");
    try {
      const photo = await api("POST", `/api/games/${game.id}/photos`, form);
      state.photos.push(photo.id);
      if (photo.scan_error) side.error = photo.scan_error;
      side.notices = scanNotices(photo.scan);
      use(photo);
    } catch (error) {
      side.error = error.message;
    }
    side.busy = false;
    render();
  }

  function uploadPhoto(s, file) {
    const side = state.sides[s];
    return sendPhoto(s, file, (photo) => {
      side.photo = photo;
      if (!photo.scan) return;
      const base = side.pieces.length;
      const doubt = uncertainOf(photo.scan);
      photo.scan.pieces.forEach((piece, k) => side.pieces.push({ code: piece.code, box: piece.box, uncertain: doubt.has(k) }));
      const added = photo.scan.melds.map((meld) => ({ meld: meld.pieces.map((i) => base + i), facing: meld.facing }));
      for (const { meld } of added) side.melds.push(meld);
      side.away = facingAway(added);
      // a hand laid down or a rack's tier in the photo: offered to the side's hand, not melded
      side.found = side.found.concat((photo.scan.hands || []).map((hand) => hand.map((i) => base + i)));
    });
  }

  /* The found hands still shown: their pieces neither melded, deleted nor counted already. */
  function foundHands(side) {
    const used = new Set(side.melds.flat());
    return side.found.filter((hand) => hand.length && hand.every((i) => !used.has(i) && !side.pieces[i].deleted));
  }

  function countAsHand(s, hand) {
    const side = state.sides[s];
    side.hands[0] = side.hands[0].concat(hand.map((i) => side.pieces[i].code));
    for (const i of hand) side.pieces[i].deleted = true;
    side.found = side.found.filter((other) => other !== hand);
    render();
  }

  /* A photo of the whole table (two sides): the melds laid facing the opposite way to most of
     the photo's melds belong, most likely, to the other side. */
  const FACINGS = ["near", "left", "far", "right"];
  function facingAway(added) {
    if (state.sides.length !== 2) return [];
    const count = new Map();
    for (const { facing } of added) if (facing) count.set(facing, (count.get(facing) || 0) + 1);
    const [main] = [...count.entries()].sort((a, b) => b[1] - a[1])[0] || [];
    if (!main) return [];
    const opposite = FACINGS[(FACINGS.indexOf(main) + 2) % 4];
    return added.filter(({ facing }) => facing === opposite).map(({ meld }) => meld);
  }

  function giveAway(s) {
    const side = state.sides[s];
    const other = state.sides[1 - s];
    for (const meld of side.away) {
      if (!side.melds.includes(meld)) continue;
      other.melds.push(meld.map((i) => other.pieces.push({ code: side.pieces[i].code, box: null }) - 1));
      for (const i of meld) side.pieces[i].deleted = true;
    }
    side.melds = side.melds.filter((meld) => !side.away.includes(meld));
    side.away = [];
    render();
  }

  function uploadHand(s, h, file) {
    const side = state.sides[s];
    return sendPhoto(s, file, (photo) => {
      if (photo.scan) side.hands[h] = side.hands[h].concat(photo.scan.pieces.map((p) => p.code));
    });
  }

  function mergeMelds(s, m) {
    const melds = state.sides[s].melds;
    melds[m] = melds[m].concat(melds[m + 1]);
    melds.splice(m + 1, 1);
    render();
  }

  function choices() {
    if (tiles) {
      return { first: Array.from({ length: 13 }, (_, i) => String(i + 1)), second: Object.keys(COLOURS), make: (a, b) => b + a };
    }
    return { first: CARD_RANKS, second: Object.keys(SUITS), make: (a, b) => a + b };
  }

  function openPicker(s, index, m, position) {
    const dialog = $("#picker");
    const side = state.sides[s];
    const grid = $("#picker-grid");
    const actions = $("#picker-actions");
    const current = index === null ? null : side.pieces[index].code;
    $("#picker-title").textContent = current ? `${t("round.change")} (${pieceLabel(current)})` : t("round.add_piece");
    grid.replaceChildren();
    actions.replaceChildren();
    const { first, second, make } = choices();
    let chosen = null;
    const apply = (code) => {
      if (index === null) {
        const i = side.pieces.push({ code, box: null }) - 1;
        if (m === null) side.melds.push([i]);
        else side.melds[m].splice(position, 0, i);
      } else {
        side.pieces[index].code = code;
        side.pieces[index].uncertain = false; // set by hand: no longer a doubt
      }
      dialog.close();
      render();
    };
    const firstRow = el("div", { class: "picker-row" });
    const secondRow = el("div", { class: "picker-row" });
    first.forEach((a) => firstRow.append(el("button", { type: "button", class: "pick", onclick: (e) => {
      chosen = a;
      firstRow.querySelectorAll(".pick").forEach((b) => b.classList.toggle("on", b === e.currentTarget));
    } }, a)));
    second.forEach((b) => secondRow.append(el("button", { type: "button", class: `pick ${tiles ? "tile-" + COLOURS[b] : (b === "H" || b === "D" ? "red" : "black")}`, onclick: () => {
      if (chosen !== null) apply(make(chosen, b));
    } }, tiles ? "●" : SUITS[b])));
    grid.append(firstRow, secondRow, el("button", { type: "button", class: "pick joker", onclick: () => apply("JK") }, "★ JK"));
    if (index !== null) {
      actions.append(el("button", { type: "button", class: "danger", onclick: () => {
        if (m !== null) side.melds[m] = side.melds[m].filter((i) => i !== index);
        side.pieces[index].deleted = true;
        side.melds = side.melds.filter((x) => x.length);
        dialog.close();
        render();
      } }, t("round.remove")));
      const move = el("select", { "aria-label": t("round.move") });
      move.append(el("option", { value: "" }, t("round.move") + "…"));
      side.melds.forEach((meld, k) => { if (k !== m) move.append(el("option", { value: k }, `${k + 1}: ${meld.map((i) => side.pieces[i].code).join(" ")}`)); });
      move.append(el("option", { value: "new" }, t("round.new_meld")));
      move.addEventListener("change", () => {
        if (!move.value) return;
        if (m !== null) side.melds[m] = side.melds[m].filter((i) => i !== index);
        if (move.value === "new") side.melds.push([index]);
        else side.melds[Number(move.value)].push(index);
        side.melds = side.melds.filter((x) => x.length);
        dialog.close();
        render();
      });
      actions.append(move);
      if (m !== null && side.melds[m].indexOf(index) < side.melds[m].length - 1) {
        actions.append(el("button", { type: "button", onclick: () => {
          const meld = side.melds[m];
          const cut = meld.indexOf(index) + 1;
          side.melds.splice(m + 1, 0, meld.slice(cut));
          side.melds[m] = meld.slice(0, cut);
          dialog.close();
          render();
        } }, t("round.split")));
      }
    }
    dialog.showModal();
  }

  let scoreTimer = null;
  function scheduleScore() {
    clearTimeout(scoreTimer);
    scoreTimer = setTimeout(score, 200);
  }

  async function score() {
    const sheetBox = $("#sheet");
    const problems = $("#problems");
    try {
      const result = await api("POST", "/api/score", { rules, sides: payload() });
      verdicts = result.verdicts;
      sheetBox.replaceChildren(...result.sides.map((side) => el("table", { class: "sheet", "data-side": side.name },
        el("caption", {}, `${side.name}: `, el("b", { class: "live-total" }, String(side.total))),
        ...side.lines.map((line) => el("tr", {},
          el("td", { class: "pts" }, (line.points >= 0 ? "+" : "") + line.points),
          el("td", {}, t(`line.${line.reason}`)),
          el("td", { class: "codes" }, line.pieces.join(" ")))))));
      problems.replaceChildren(...result.problems.map((p) => el("li", { class: "error" }, problemText(p))));
      document.querySelectorAll(".side-card").forEach((card, s) => {
        const shown = state.sides[s].melds.filter((m) => m.length);
        card.querySelectorAll(".meld[data-meld]").forEach((row, k) => {
          const verdict = (verdicts[s] || [])[k];
          if (!verdict || !shown[k]) return;
          row.classList.toggle("valid", verdict.valid);
          row.classList.toggle("invalid", !verdict.valid);
          row.querySelector(".verdict-line").textContent = verdictText(verdict);
        });
        card.querySelectorAll(".meld-outline").forEach((outline) => {
          const m = Number(outline.dataset.meld);
          const verdict = (verdicts[s] || [])[shown.indexOf(state.sides[s].melds[m])];
          outline.classList.toggle("valid", !!verdict && verdict.valid);
          outline.classList.toggle("invalid", !!verdict && !verdict.valid);
          outline.querySelector("text").textContent = meldMark(m, verdict);
          outline.querySelector("title").textContent = verdictText(verdict);
        });
      });
    } catch (error) {
      problems.replaceChildren(el("li", { class: "error" }, error.message));
    }
  }

  $("#save-round").addEventListener("click", async () => {
    const button = $("#save-round");
    button.disabled = true;
    const errorBox = $("#save-error");
    errorBox.hidden = true;
    try {
      const body = { sides: payload(), photos: state.photos };
      const saved = number
        ? await api("PUT", `/api/games/${game.id}/rounds/${number}`, body)
        : await api("POST", `/api/games/${game.id}/rounds`, body);
      toast(t("round.saved"));
      location.href = `/games/${game.id}#round-${saved.number}`;
    } catch (error) {
      errorBox.textContent = error.message;
      errorBox.hidden = false;
      button.disabled = false;
    }
  });

  render();
  reopenPhotos();
}

/* --------------------------------------------------------------------- check */

function checkPage() {
  const form = $("#check-form");
  const out = $("#verdict");
  const rulesSelect = $("#check-rules");
  const photo = $("#check-photo");

  let notices = []; // what the scan said of the photo the meld was read from (SCAN_NOTICES)
  let doubts = []; // the codes of the meld's pieces the scan read uncertainly
  let photoMelds = []; // the photo's melds ({codes, doubts, ordered}), the one nearest its centre first
  let current = -1; // the one checked (-1: a meld typed)
  $("#meld").addEventListener("input", () => { notices = []; doubts = []; current = -1; }); // typed by hand

  /* Check the photo's meld k. */
  function checkMeld(k) {
    current = k;
    $("#meld").value = photoMelds[k].codes.join(" ");
    doubts = photoMelds[k].doubts;
    $("#ordered").checked = photoMelds[k].ordered;
    form.requestSubmit();
  }

  /* The photo's melds, the one nearest its centre (the meld the photo was aimed at) first; a
     photo of no meld gives its pieces as one. */
  function meldsOf(scan) {
    const uncertain = uncertainOf(scan);
    const read = (pieces, ordered) => ({
      codes: pieces.map((i) => scan.pieces[i].code),
      doubts: pieces.filter((i) => uncertain.has(i)).map((i) => scan.pieces[i].code),
      ordered,
    });
    if (!scan.melds.length) return [read(scan.pieces.map((p, i) => i), false)];
    const off = (meld) => {
      const centres = meld.pieces.map((i) => scan.pieces[i].box).map(([x1, y1, x2, y2]) => [(x1 + x2) / 2, (y1 + y2) / 2]);
      const [x, y] = centres.reduce(([a, b], [c, d]) => [a + c / centres.length, b + d / centres.length], [0, 0]);
      return Math.hypot(x - scan.width / 2, y - scan.height / 2);
    };
    return scan.melds.map((meld) => [off(meld), meld]).sort((a, b) => a[0] - b[0]).map(([, meld]) => read(meld.pieces, true));
  }

  photo.addEventListener("change", async () => {
    if (!photo.files[0]) return;
    notices = [];
    doubts = [];
    photoMelds = [];
    out.hidden = false;
    out.replaceChildren(el("p", { class: "progress" }, el("span", { class: "spinner" }), t("round.reading")));
    const body = new FormData();
    body.append("photo", photo.files[0]);
    body.append("rules", rulesSelect.value);
    try {
      const scan = await api("POST", "/api/scan", body);
      notices = scanNotices(scan);
      photoMelds = meldsOf(scan);
      checkMeld(0);
    } catch (error) {
      out.replaceChildren(el("p", { class: "error" }, error.message));
    }
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const pieces = splitCodes($("#meld").value);
    const rules = rulesSelect.value;
    out.hidden = false;
    try {
      const verdict = await api("POST", "/api/check", { rules, pieces, ordered: $("#ordered").checked });
      const doubtful = doubtMarker(doubts);
      const nodes = [
        el("p", { class: "big " + (verdict.valid ? "ok" : "bad"), id: "verdict-title" }, verdict.valid ? t("check.valid") : t("check.invalid")),
        el("div", { class: "chips" }, verdict.reading.map((r) => pieceChip(r.piece, { title: r.wild ? `= ${r.as}` : r.as, disabled: true }, doubtful(r.piece)))),
        el("p", { id: "verdict-reason" }, verdictText(verdict)),
      ];
      if (doubts.length) nodes.push(el("p", { class: "notice doubt" }, `${t("check.doubt")} ${doubts.map(pieceLabel).join(" ")}`));
      nodes.unshift(...noticeNodes(notices));
      const piece = splitCodes($("#add-piece").value)[0];
      if (piece && verdict.valid) {
        const added = await api("POST", "/api/add", { rules, meld: verdict.pieces, piece, ordered: true });
        nodes.push(el("h2", {}, `${t("check.can_add")} ${piece}`),
          el("p", { class: "big " + (added.allowed ? "ok" : "bad"), id: "add-answer" }, added.allowed ? t("check.yes") : t("check.no")),
          el("p", {}, added.reason));
        if (added.allowed) nodes.push(el("p", {}, `${t("check.becomes")}: `, el("b", {}, added.melds.map((m) => m.join(" ")).join(" | "))));
      }
      const others = photoMelds.map((meld, k) => [meld, k]).filter(([, k]) => k !== current);
      if (others.length) { // the photo's other melds, each a tap away from its own verdict
        nodes.push(el("h2", {}, t("check.others")), ...others.map(([meld, k]) => {
          const doubt = doubtMarker(meld.doubts);
          return el("div", { class: "meld other-meld", "data-meld": k },
            el("div", { class: "chips" }, meld.codes.map((code) => pieceChip(code, { disabled: true }, doubt(code)))),
            el("button", { type: "button", class: "check-other", onclick: () => checkMeld(k) }, t("check.this_one")));
        }));
      }
      out.replaceChildren(...nodes);
    } catch (error) {
      out.replaceChildren(el("p", { class: "error" }, error.message));
    }
  });
}

const PAGES = { "new-game": newGamePage, game: gamePage, round: roundPage, check: checkPage };
const start = PAGES[document.body.dataset.page];
if (start) start();
