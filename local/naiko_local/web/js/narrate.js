// narrate.js: the events of an update (protocol.md §8) as sentences for the table's log.
// Unknown kinds are skipped: the server may add some.
//
// Sentences about the reader are in the second person ("You raise to 8", "Your clock ran out:
// you fold"), about anybody else by name with third-person verbs ("ana raises to 8"); a player
// whose id reads as "you" is quoted (`"you" raises to 8`), so that nobody is taken for the
// reader. The terminal client says the same (naiko_client.render, docs/client.md).
//
// Every sentence is looked up in the page's language (js/i18n.js): a sentence about the reader
// and one about another player are two texts ("You raise to {to}", "{name} raises to {to}"),
// since languages other than English conjugate differently for "you".

import { tr } from "./i18n.js";

export const POWER_NAMES = {
  peek: "Peek", sleeve_swap: "Sleeve Swap", short_anchor: "Short Anchor", seal_shield: "Seal Shield",
};

/** Destellos each power costs (R5.7, R6.1-R6.4). */
export const POWER_COSTS = { peek: 1, sleeve_swap: 2, short_anchor: 2, seal_shield: 1 };

const STREETS = { flop: "Flop", turn: "Turn", river: "River" };

/** Words a sentence uses for the reader (any case; quotes and punctuation around ignored). */
export const SECOND_PERSON = new Set(["you", "your", "yours", "yourself", "yourselves", "you're",
  "you've", "you'll", "you'd"]);

/** Whether a player id reads as a word for the reader: "you", "You", "YOUR", `"you"`, "you!". */
export function readsAsYou(name) {
  const core = String(name).replace(/’/g, "'").replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "").toLowerCase();
  return SECOND_PERSON.has(core);
}

/** Another player's id as the client shows it: quoted when it reads as "you". */
export function shownName(name) {
  return readsAsYou(name) ? `"${name}"` : String(name);
}

/** A player as a sentence names them: the reader (`me`) in the second person, others by name. */
export class Person {
  constructor(name, me = false) {
    this.name = String(name);
    this.me = Boolean(me);
  }

  /** Subject or object: "You" (at the start of a sentence) / "you", or the name as shown. */
  who(start = false) {
    if (this.me) return start ? "You" : "you";
    return shownName(this.name);
  }
}

function cardsText(cards) {
  return (cards || "").match(/.{2}/g)?.join(" ") || "";
}

/** The power's name in the page's language. */
export function powerName(power) {
  return POWER_NAMES[power] ? tr(POWER_NAMES[power]) : String(power);
}

/** The sentence about the reader if *person* is the reader, else the one about them. */
function say(person, mine, theirs) {
  return person.me ? mine : theirs;
}

/**
 * Turn events into sentences.
 * @param {object[]} events  the update's events, in order
 * @param {(seat: number) => string} nameOf  a seat's player id (from the view), "seat N" if none
 * @param {{seat?: number|null, player?: string|null}} me  the reader: their seat and player id
 *   (the seat's player when no id is given)
 * @returns {string[]}
 */
export function narrate(events, nameOf, me = {}) {
  const mySeat = me.seat ?? null;
  const reader = me.player ?? (mySeat !== null ? nameOf(mySeat) : null);
  const people = {
    reader,
    /** The player at a seat. */
    seat: (seat) => new Person(nameOf(seat), reader !== null && seat !== undefined && seat !== null &&
      nameOf(seat) === reader),
    /** The player an event names by id. */
    player: (id) => new Person(id, reader !== null && String(id) === reader),
  };
  const lines = [];
  for (const e of events || []) {
    const line = sentence(e, people);
    if (line) lines.push(...String(line).split("\n"));
  }
  return lines;
}

function sentence(e, people) {
  const p = people.seat(e.seat_index);
  const name = p.who();
  switch (e.kind) {
    case "seated": {
      const who = people.player(e.player_id);
      const n = { name: who.who(), stack: e.stack };
      if (e.is_bot) return tr("{name} (BOT) sits down with {stack}", n);
      return say(who, tr("You sit down with {stack}", n), tr("{name} sits down with {stack}", n));
    }
    case "hand_started":
      return e.ante
        ? tr("— Hand #{hand}: blinds {sb}/{bb} ante {ante} —", { hand: e.hand_number, sb: e.small_blind, bb: e.big_blind, ante: e.ante })
        : tr("— Hand #{hand}: blinds {sb}/{bb} —", { hand: e.hand_number, sb: e.small_blind, bb: e.big_blind });
    case "blind_posted":
      return blind(p, e);
    case "ante_posted": {
      const n = { name, amount: e.amount };
      return e.all_in
        ? say(p, tr("You post an ante of {amount} and are all-in", n), tr("{name} posts an ante of {amount} and is all-in", n))
        : say(p, tr("You post an ante of {amount}", n), tr("{name} posts an ante of {amount}", n));
    }
    case "deck_committed": // R10.2: the deck is fixed before the first card (docs/fairness.md)
      return tr("Deck committed before the deal: {root}…", { root: String(e.root).slice(0, 16) });
    case "hole_cards": // private to the reader
      return tr("You are dealt {cards}", { cards: cardsText(e.cards) });
    case "carousel":
      return tr("Carousel: {powers}", { powers: (e.powers || []).map(powerName).join(", ") });
    case "action":
      return action(p, e);
    case "board_dealt": {
      const street = { flop: tr("Flop"), turn: tr("Turn"), river: tr("River") }[e.street] || e.street;
      return e.run_out
        ? tr("{street}: {cards} (run out)", { street, cards: cardsText(e.cards) })
        : tr("{street}: {cards}", { street, cards: cardsText(e.cards) });
    }
    case "uncalled_bet_returned": {
      const n = { name, amount: e.amount };
      return say(p, tr("{amount} uncalled returned to you", n), tr("{amount} uncalled returned to {name}", n));
    }
    case "showdown":
      return (e.hands || []).map((hand) => {
        const who = people.seat(hand.seat_index);
        const n = { name: who.who(), cards: cardsText(hand.cards), hand: hand.hand || "" };
        return say(who, tr("You show {cards}: {hand}", n), tr("{name} shows {cards}: {hand}", n));
      }).join("\n");
    case "pot_awarded": {
      const winners = Object.entries(e.winners || {}).map(([seat, amount], i) => {
        const who = people.seat(Number(seat));
        const n = { name: who.who(), amount };
        if (!who.me) return tr("{name} wins {amount}", n);
        return i === 0 ? tr("You win {amount}", n) : tr("you win {amount}", n);
      }).join(", ");
      const n = { winners, amount: e.amount, index: e.pot_index };
      if (e.pot_index) {
        return e.showdown ? tr("{winners} (side pot {index} of {amount})", n)
          : tr("{winners} (side pot {index} of {amount}, uncontested)", n);
      }
      return e.showdown ? tr("{winners} (the pot of {amount})", n)
        : tr("{winners} (the pot of {amount}, uncontested)", n);
    }
    case "hand_ended":
      return tr("Hand #{hand} is over", { hand: e.hand_number });
    case "hand_cancelled":
      return tr("Hand #{hand} was cancelled ({reason}): every bet was returned", { hand: e.hand_number, reason: e.reason });
    case "power_used":
      return power(p, e, people);
    case "peek_result": // private to the reader
      return tr("You peek: {card} will come on the {street}", {
        card: e.card, street: { flop: tr("flop"), turn: tr("turn"), river: tr("river") }[e.street] || e.street,
      });
    case "sleeve_swap_result": // private to the reader
      return tr("You swap {discarded} for {received}: your cards are now {cards}", {
        discarded: e.discarded, received: e.received, cards: cardsText(e.cards),
      });
    case "window_opened": {
      const target = people.seat(e.target);
      const attacker = people.seat(e.attacker);
      const n = { name: target.who(), attacker: attacker.who() };
      if (target.me) return tr("You may answer {attacker}'s Short Anchor with Seal Shield", n);
      if (attacker.me) return tr("{name} may answer your Short Anchor with Seal Shield", n);
      return tr("{name} may answer {attacker}'s Short Anchor with Seal Shield", n);
    }
    case "window_closed": {
      const target = people.seat(e.target);
      const n = { name: target.who() };
      switch (e.reason) {
        case "shielded": return say(target, tr("You shield: the Short Anchor is cancelled", n), tr("{name} shields: the Short Anchor is cancelled", n));
        case "passed": return say(target, tr("You let the Short Anchor apply", n), tr("{name} lets the Short Anchor apply", n));
        case "acted": return say(target, tr("You acted: the Short Anchor applies", n), tr("{name} acted: the Short Anchor applies", n));
        case "timed_out": return tr("The Shield window closed: the Short Anchor applies");
        case "round_ended": return tr("The betting round ended: the Short Anchor expires");
        default: return tr("The Shield window closed");
      }
    }
    case "anchor_applied": {
      const attacker = people.seat(e.attacker);
      const target = people.seat(e.target);
      const n = { name: attacker.who(), target: target.who() };
      if (attacker.me) return tr("Your Short Anchor caps {target}'s raises this round", n);
      if (target.me) return tr("{name}'s Short Anchor caps your raises this round", n);
      return tr("{name}'s Short Anchor caps {target}'s raises this round", n);
    }
    case "timed_out": {
      const n = { name };
      if (e.decision === "check") return say(p, tr("Your clock ran out: you check", n), tr("{name}'s clock ran out: {name} checks", n));
      return say(p, tr("Your clock ran out: you fold", n), tr("{name}'s clock ran out: {name} folds", n));
    }
    case "disconnected": {
      const who = people.player(e.player_id);
      return say(who, tr("You lost the connection"), tr("{name} lost the connection", { name: who.who() }));
    }
    case "time_bank_started": {  // R8.7
      const n = { name, n: Math.floor((e.bank_ms || 0) / 1000) };
      return say(p, tr("Your clock ran out: your time bank runs ({n} s)", n), tr("{name}'s time bank runs ({n} s)", n));
    }
    case "pre_action_cleared":  // R8.8: told to its owner only
      return tr("Your pre-action was dropped: the price changed");
    case "reconnect_grace":
      return say(p, tr("You are disconnected: extra time to reconnect"), tr("{name} is disconnected: extra time to reconnect", { name }));
    case "reconnected": {
      const who = people.player(e.player_id);
      return say(who, tr("You are back"), tr("{name} is back", { name: who.who() }));
    }
    case "sat_out":
      return say(p, tr("You sit out"), tr("{name} sits out", { name }));
    case "sat_in":
      return say(p, tr("You are dealt in again"), tr("{name} is dealt in again", { name }));
    case "chips_added": {
      const n = { name, amount: e.amount, stack: e.stack };
      return say(p, tr("You add {amount} (stack {stack})", n), tr("{name} adds {amount} (stack {stack})", n));
    }
    case "leaving_after_hand":
      return say(p, tr("You will leave after this hand"), tr("{name} will leave after this hand", { name }));
    case "stood_up": {
      const who = people.player(e.player_id);
      const n = { name: who.who(), stack: e.stack };
      return say(who, tr("You stand up with {stack}", n), tr("{name} stands up with {stack}", n));
    }
    case "left_table": {
      const who = people.player(e.player_id);
      const n = { name: who.who(), reason: e.reason };
      if (e.reason && e.reason !== "left") {
        return say(who, tr("You left the table ({reason})", n), tr("{name} left the table ({reason})", n));
      }
      return say(who, tr("You left the table"), tr("{name} left the table", n));
    }
    case "table_closed":
      return e.reason === "host" ? tr("The host closed the table") : tr("The table closed");
    case "entry_chosen":
      if (e.entry === "post") return say(p, tr("You will post to be dealt in"), tr("{name} will post to be dealt in", { name }));
      return say(p, tr("You will wait for the big blind"), tr("{name} will wait for the big blind", { name }));
    case "waitlist_changed":
      return (e.waitlist || []).length
        ? tr("Waiting list: {players}", { players: e.waitlist.map((id) => people.player(id)).map((who) => (who.me ? tr("you") : who.who())).join(", ") })
        : tr("The waiting list is empty");
    case "seat_offered": { // R7.10: told to that player only (a reader with no id is that player)
      const who = offered(people, e);
      return say(who, tr("A seat is held for you"), tr("A seat is held for {name}", { name: who.who() }));
    }
    case "offer_expired": {
      const who = offered(people, e);
      return say(who, tr("The seat held for you went to the next in line"), tr("The seat held for {name} went to the next in line", { name: who.who() }));
    }
    case "host_changed": {
      const who = people.player(e.host);
      return say(who, tr("You are now the host"), tr("{name} is now the host", { name: who.who() }));
    }
    case "settings_changed": {
      const n = { changes: Object.keys(e.changes || {}).join(", ") };
      return e.pending ? tr("The host changed {changes} (from the next hand)", n) : tr("The host changed {changes}", n);
    }
    case "table_paused":
      return e.paused ? tr("The table is paused") : tr("The table resumes");
    case "tournament_started":
      return e.multiplier
        ? tr("The tournament starts: prize pool {pool}, Spin x{multiplier}", { pool: e.prize_pool, multiplier: e.multiplier })
        : tr("The tournament starts: prize pool {pool}", { pool: e.prize_pool });
    case "level_changed": {
      const n = { level: e.level, sb: e.small_blind, bb: e.big_blind, ante: e.ante };
      return e.ante ? tr("Level {level}: blinds {sb}/{bb} ante {ante}", n) : tr("Level {level}: blinds {sb}/{bb}", n);
    }
    case "final_table": // R9.7
      return tr("The final table is formed: every player left moves there");
    case "break_started":
      return tr("A {minutes}-minute break: play resumes with level {level}", { minutes: e.minutes, level: e.next_level });
    case "tournament_paused": // R9.15, the director
      if (e.reason) return tr("The director pauses the tournament ({reason}): play holds after this hand", { reason: e.reason });
      return tr("The director pauses the tournament: play holds after this hand");
    case "tournament_resumed":
      return tr("Play resumes: level {level} goes on with the time it had left", { level: e.level });
    case "level_extended":
      return tr("The director adds {minutes} min to level {level}", { minutes: e.minutes, level: e.level });
    case "tournament_cancelled":
      if (e.policy === "equal") return tr("The director cancels the tournament: the prizes left are split equally; the table closes");
      if (e.policy === "icm") return tr("The director cancels the tournament: the prizes left are split by ICM; the table closes");
      return tr("The director cancels the tournament: the prizes left are split by chip count; the table closes");
    case "deal_asked": { // R9.16
      const who = people.player(e.player_id);
      const n = { name: who.who(), asked: (e.asked || []).length, players: (e.asked || []).length + (e.waiting || []).length };
      return say(who, tr("You ask for a deal ({asked} of {players} asked)", n), tr("{name} asks for a deal ({asked} of {players} asked)", n));
    }
    case "deal_offered": {
      const amounts = (list) => (e.players || []).map((p, i) => `${people.player(p).who()} ${(list || [])[i]}`).join(", ");
      return tr("A deal is offered: ICM {icm}; chip count {chips}; kept for the winner {kept}", { icm: amounts(e.icm), chips: amounts(e.chip_count), kept: e.kept });
    }
    case "deal_accepted": {
      const who = people.player(e.player_id);
      if (e.split === "icm") return say(who, tr("You accept the ICM split"), tr("{name} accepts the ICM split", { name: who.who() }));
      return say(who, tr("You accept the chip-count split"), tr("{name} accepts the chip-count split", { name: who.who() }));
    }
    case "deal_cancelled": {
      if (e.reason === "paused") return tr("No deal: the director paused the tournament");
      if (e.reason !== "declined") return tr("No deal: the deal clock ran out, play resumes");
      const who = people.player(e.player_id);
      return say(who, tr("You decline the deal: play resumes"), tr("{name} declines the deal: play resumes", { name: who.who() }));
    }
    case "deal_made": {
      const amounts = (e.players || []).map((p, i) => `${people.player(p).who()} ${(e.amounts || [])[i]}`).join(", ");
      if (e.kept) return tr("Deal made: {amounts}; play goes on for {kept}", { amounts, kept: e.kept });
      return tr("Deal made: {amounts}; the tournament ends", { amounts });
    }
    case "eliminated": {
      const who = people.player(e.player_id);
      const n = { name: who.who(), place: e.place, prize: e.prize };
      if (e.prize) return say(who, tr("You are out in place {place}, winning {prize}", n), tr("{name} is out in place {place}, winning {prize}", n));
      return say(who, tr("You are out in place {place}", n), tr("{name} is out in place {place}", n));
    }
    case "tournament_finished": {
      const who = people.player(e.winner);
      const n = { name: who.who(), prize: e.prize };
      return say(who, tr("You win the tournament and {prize}", n), tr("{name} wins the tournament and {prize}", n));
    }
    default:
      return null; // "turn" and kinds this client does not know
  }
}

function offered(people, e) {
  const who = people.player(e.player_id);
  return people.reader === null ? new Person(who.name, true) : who;
}

function blind(p, e) {
  const n = { name: p.who(), amount: e.amount, blind: e.blind };
  if (e.blind === "post") {
    return e.all_in
      ? say(p, tr("You post a big blind of {amount} to come in and are all-in", n), tr("{name} posts a big blind of {amount} to come in and is all-in", n))
      : say(p, tr("You post a big blind of {amount} to come in", n), tr("{name} posts a big blind of {amount} to come in", n));
  }
  if (e.blind === "dead") {
    return e.all_in
      ? say(p, tr("You post a dead small blind of {amount} and are all-in", n), tr("{name} posts a dead small blind of {amount} and is all-in", n))
      : say(p, tr("You post a dead small blind of {amount}", n), tr("{name} posts a dead small blind of {amount}", n));
  }
  if (e.blind === "small") {
    return e.all_in
      ? say(p, tr("You post the small blind of {amount} and are all-in", n), tr("{name} posts the small blind of {amount} and is all-in", n))
      : say(p, tr("You post the small blind of {amount}", n), tr("{name} posts the small blind of {amount}", n));
  }
  return e.all_in
    ? say(p, tr("You post the big blind of {amount} and are all-in", n), tr("{name} posts the big blind of {amount} and is all-in", n))
    : say(p, tr("You post the big blind of {amount}", n), tr("{name} posts the big blind of {amount}", n));
}

function action(p, e) {
  const n = { name: p.who(), amount: e.amount ?? "", to: e.to, action: e.action };
  switch (e.action) {
    case "fold": return say(p, tr("You fold"), tr("{name} folds", n));
    case "check": return say(p, tr("You check"), tr("{name} checks", n));
    case "call":
      if (e.all_in) return say(p, tr("You call {amount} and are all-in", n), tr("{name} calls {amount} and is all-in", n));
      return say(p, tr("You call {amount}", n), tr("{name} calls {amount}", n)).trim();
    case "bet":
      if (e.all_in) return say(p, tr("You bet {to} (all-in)", n), tr("{name} bets {to} (all-in)", n));
      return say(p, tr("You bet {to}", n), tr("{name} bets {to}", n));
    case "raise_to":
      if (e.all_in) return say(p, tr("You raise to {to} (all-in)", n), tr("{name} raises to {to} (all-in)", n));
      return say(p, tr("You raise to {to}", n), tr("{name} raises to {to}", n));
    default: return `${p.who(true)} ${e.action}`;
  }
}

function power(p, e, people) {
  const n = { name: p.who() };
  if (e.power === "short_anchor") {
    const target = people.seat(e.target_seat);
    const m = { name: p.who(), target: target.who() };
    if (p.me) return tr("You use Short Anchor on {target}", m);
    if (target.me) return tr("{name} uses Short Anchor on you", m);
    return tr("{name} uses Short Anchor on {target}", m);
  }
  if (e.power === "seal_shield") return say(p, tr("You use Seal Shield"), tr("{name} uses Seal Shield", n));
  if (e.power === "sleeve_swap") {
    const m = { name: p.who(), card: Number(e.card_index) + 1 };
    return say(p, tr("You use Sleeve Swap (card {card})", m), tr("{name} uses Sleeve Swap (card {card})", m));
  }
  const m = { name: p.who(), power: powerName(e.power), left: e.destellos };
  if (e.destellos === 1) return say(p, tr("You use {power} (1 destello left)", m), tr("{name} uses {power} (1 destello left)", m));
  return say(p, tr("You use {power} ({left} destellos left)", m), tr("{name} uses {power} ({left} destellos left)", m));
}
