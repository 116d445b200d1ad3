// dom.js: small DOM helpers. Everything a player or the server names (player ids, table names)
// goes into the page as text (textContent), never as HTML.

/**
 * Create an element: h("div", {class: "seat", dataset: {seat: 2}}, "text", child, ...).
 * Attributes starting with "on" are event listeners; `null`/`false` children are skipped;
 * `style: {left: "4%", "--x": "4%"}` sets properties, custom ones (`--x`) included.
 */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElementNS(
    tag === "svg" || tag === "circle" ? "http://www.w3.org/2000/svg" : "http://www.w3.org/1999/xhtml",
    tag,
  );
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "dataset") {
      for (const [name, data] of Object.entries(value)) {
        if (data !== null && data !== undefined) element.dataset[name] = String(data);
      }
    } else if (key.startsWith("on") && typeof value === "function") {
      element.addEventListener(key.slice(2), value);
    } else if (key === "style" && typeof value === "object") {
      for (const [name, css] of Object.entries(value)) {
        if (name.startsWith("--")) element.style.setProperty(name, String(css)); // a custom property
        else element.style[name] = css;
      }
    } else if (value === true) {
      element.setAttribute(key, "");
    } else {
      element.setAttribute(key, String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace an element's children. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

// -- cards -----------------------------------------------------------------------------------

const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };

/** "TdKh" -> ["Td", "Kh"] (cards are 2 characters: rank 23456789TJQKA, suit cdhs). */
export function splitCards(text) {
  const cards = [];
  for (let i = 0; i + 1 < (text || "").length; i += 2) cards.push(text.slice(i, i + 2));
  return cards;
}

/**
 * A face-up card. `data-card` holds the card ("Kh") and `data-hand` the hand it belongs to:
 * the browser tests read them to check that the page never shows another seat's hidden card.
 */
export function cardFace(card, { hand = null, small = false, extra = "" } = {}) {
  const suit = card[1];
  const rank = RANKS[card[0]] || card[0];
  return h("div", {
    class: `card face suit-${suit}${small ? " small" : ""}${extra ? " " + extra : ""}`,
    dataset: { card, hand }, title: card,
  }, h("span", { class: "rank" }, rank), h("span", { class: "suit" }, SUITS[suit] || "?"));
}

/** A face-down card (a seat's hidden card: the page never knows what it is). */
export function cardBack({ small = false } = {}) {
  return h("div", { class: `card back${small ? " small" : ""}`, dataset: { card: "back" } });
}

/** An empty place for a card still to come (the board's). */
export function cardSlot() {
  return h("div", { class: "card slot" });
}

// -- numbers and times -----------------------------------------------------------------------

/** 12345 -> "12,345" (chips are integers). */
export function chips(n) {
  return Number(n || 0).toLocaleString("en-US");
}

/** Seconds left until `deadlineMs` on the server clock `nowMs`, never negative. */
export function secondsLeft(deadlineMs, nowMs) {
  return Math.max(0, Math.ceil((deadlineMs - nowMs) / 1000));
}

/** 125 -> "2:05". */
export function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

/** 1 -> "1st", 2 -> "2nd", 11 -> "11th". */
export function ordinal(n) {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return n + ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
}

/**
 * A countdown ring (SVG): `fraction` of the circle left. The app updates it every tick through
 * `setRing` (no re-render needed).
 */
export function ring(className = "ring") {
  const svg = h("svg", { class: className, viewBox: "0 0 36 36", "aria-hidden": "true" },
    h("circle", { class: "ring-track", cx: 18, cy: 18, r: 16 }),
    h("circle", { class: "ring-left", cx: 18, cy: 18, r: 16, pathLength: 100 }));
  return svg;
}

export function setRing(svg, fraction) {
  const left = svg.querySelector(".ring-left");
  const f = Math.max(0, Math.min(1, fraction));
  left.style.strokeDasharray = `${(f * 100).toFixed(2)} 100`;
  svg.classList.toggle("urgent", f < 0.25);
}
