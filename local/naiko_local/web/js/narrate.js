// narrate.js: the events of an update (protocol.md §8) as sentences for the table's log.
// Unknown kinds are skipped: the server may add some.
//
// Sentences about the reader are in the second person ("You raise to 8", "Your clock ran out:
// you fold"), about anybody else by name with third-person verbs ("ana raises to 8"); a player
// whose id reads as "you" is quoted (`"you" raises to 8`), so that nobody is taken for the
// reader. The terminal client says the same (naiko_client.render, docs/client.md).

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

const BASE_FORMS = { is: "are", has: "have", was: "were" };

/** A verb's form after "you": raises -> raise, is -> are. */
export function baseForm(verb) {
  if (BASE_FORMS[verb]) return BASE_FORMS[verb];
  return verb.endsWith("s") && !verb.endsWith("ss") ? verb.slice(0, -1) : verb;
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

  /** The possessive: "Your" / "your", or "ana's". */
  whose(start = false) {
    if (this.me) return start ? "Your" : "your";
    return `${shownName(this.name)}'s`;
  }

  /** `verb`, given in the third person, agreeing with this subject. */
  does(verb) {
    return this.me ? baseForm(verb) : verb;
  }
}

function cardsText(cards) {
  return (cards || "").match(/.{2}/g)?.join(" ") || "";
}

function destellosLeft(count) {
  return `${count} destello${count === 1 ? "" : "s"} left`;
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
  const allIn = e.all_in ? ` and ${p.does("is")} all-in` : "";
  switch (e.kind) {
    case "seated": {
      const who = people.player(e.player_id);
      return `${who.who(true)}${e.is_bot ? " (BOT)" : ""} ${who.does("sits")} down with ${e.stack}`;
    }
    case "hand_started":
      return `— Hand #${e.hand_number}: blinds ${e.small_blind}/${e.big_blind}` +
        (e.ante ? ` ante ${e.ante}` : "") + " —";
    case "blind_posted":
      if (e.blind === "post") return `${p.who(true)} ${p.does("posts")} a big blind of ${e.amount} to come in${allIn}`;
      if (e.blind === "dead") return `${p.who(true)} ${p.does("posts")} a dead small blind of ${e.amount}${allIn}`;
      return `${p.who(true)} ${p.does("posts")} the ${e.blind} blind of ${e.amount}${allIn}`;
    case "ante_posted":
      return `${p.who(true)} ${p.does("posts")} an ante of ${e.amount}${allIn}`;
    case "deck_committed": // R10.2: the deck is fixed before the first card (docs/fairness.md)
      return `Deck committed before the deal: ${String(e.root).slice(0, 16)}…`;
    case "hole_cards": // private to the reader
      return `You are dealt ${cardsText(e.cards)}`;
    case "carousel":
      return "Carousel: " + (e.powers || []).map((power) => POWER_NAMES[power] || power).join(", ");
    case "action":
      return action(p, e);
    case "board_dealt":
      return `${STREETS[e.street] || e.street}: ${cardsText(e.cards)}${e.run_out ? " (run out)" : ""}`;
    case "uncalled_bet_returned":
      return `${e.amount} uncalled returned to ${p.who()}`;
    case "showdown":
      return (e.hands || []).map((hand) => {
        const who = people.seat(hand.seat_index);
        return `${who.who(true)} ${who.does("shows")} ${cardsText(hand.cards)}: ${hand.hand || ""}`;
      }).join("\n");
    case "pot_awarded": {
      const winners = Object.entries(e.winners || {}).map(([seat, amount], i) => {
        const who = people.seat(Number(seat));
        return `${who.who(i === 0)} ${who.does("wins")} ${amount}`;
      });
      const pot = e.pot_index ? `side pot ${e.pot_index}` : "the pot";
      return `${winners.join(", ")} (${pot} of ${e.amount}${e.showdown ? "" : ", uncontested"})`;
    }
    case "hand_ended":
      return `Hand #${e.hand_number} is over`;
    case "hand_cancelled":
      return `Hand #${e.hand_number} was cancelled (${e.reason}): every bet was returned`;
    case "power_used":
      return power(p, e, people);
    case "peek_result": // private to the reader
      return `You peek: ${e.card} will come on the ${e.street}`;
    case "sleeve_swap_result": // private to the reader
      return `You swap ${e.discarded} for ${e.received}: your cards are now ${cardsText(e.cards)}`;
    case "window_opened":
      return `${people.seat(e.target).who(true)} may answer ${people.seat(e.attacker).whose()} ` +
        "Short Anchor with Seal Shield";
    case "window_closed": {
      const target = people.seat(e.target);
      return {
        shielded: `${target.who(true)} ${target.does("shields")}: the Short Anchor is cancelled`,
        passed: `${target.who(true)} ${target.does("lets")} the Short Anchor apply`,
        acted: `${target.who(true)} acted: the Short Anchor applies`,
        timed_out: "The Shield window closed: the Short Anchor applies",
        round_ended: "The betting round ended: the Short Anchor expires",
      }[e.reason] || "The Shield window closed";
    }
    case "anchor_applied":
      return `${people.seat(e.attacker).whose(true)} Short Anchor caps ${people.seat(e.target).whose()} ` +
        "raises this round";
    case "timed_out":
      return `${p.whose(true)} clock ran out: ${p.who()} ${p.does(e.decision === "check" ? "checks" : "folds")}`;
    case "disconnected":
      return `${people.player(e.player_id).who(true)} lost the connection`;
    case "reconnect_grace":
      return `${p.who(true)} ${p.does("is")} disconnected: extra time to reconnect`;
    case "reconnected": {
      const who = people.player(e.player_id);
      return `${who.who(true)} ${who.does("is")} back`;
    }
    case "sat_out":
      return `${p.who(true)} ${p.does("sits")} out`;
    case "sat_in":
      return `${p.who(true)} ${p.does("is")} dealt in again`;
    case "chips_added":
      return `${p.who(true)} ${p.does("adds")} ${e.amount} (stack ${e.stack})`;
    case "leaving_after_hand":
      return `${p.who(true)} will leave after this hand`;
    case "stood_up": {
      const who = people.player(e.player_id);
      return `${who.who(true)} ${who.does("stands")} up with ${e.stack}`;
    }
    case "left_table":
      return `${people.player(e.player_id).who(true)} left the table` +
        (e.reason && e.reason !== "left" ? ` (${e.reason})` : "");
    case "table_closed":
      return e.reason === "host" ? "The host closed the table" : "The table closed";
    case "entry_chosen":
      return e.entry === "post" ? `${p.who(true)} will post to be dealt in` : `${p.who(true)} will wait for the big blind`;
    case "waitlist_changed":
      return (e.waitlist || []).length
        ? `Waiting list: ${e.waitlist.map((id) => people.player(id).who()).join(", ")}`
        : "The waiting list is empty";
    case "seat_offered": // R7.10: told to that player only (a reader with no id is that player)
      return `A seat is held for ${offered(people, e).who()}`;
    case "offer_expired":
      return `The seat held for ${offered(people, e).who()} went to the next in line`;
    case "host_changed": {
      const who = people.player(e.host);
      return `${who.who(true)} ${who.does("is")} now the host`;
    }
    case "settings_changed":
      return `The host changed ${Object.keys(e.changes || {}).join(", ")}` +
        (e.pending ? " (from the next hand)" : "");
    case "table_paused":
      return e.paused ? "The table is paused" : "The table resumes";
    case "tournament_started":
      return `The tournament starts: prize pool ${e.prize_pool}` +
        (e.multiplier ? `, Spin x${e.multiplier}` : "");
    case "level_changed":
      return `Level ${e.level}: blinds ${e.small_blind}/${e.big_blind}` + (e.ante ? ` ante ${e.ante}` : "");
    case "eliminated": {
      const who = people.player(e.player_id);
      return `${who.who(true)} ${who.does("is")} out in place ${e.place}` + (e.prize ? `, winning ${e.prize}` : "");
    }
    case "tournament_finished": {
      const who = people.player(e.winner);
      return `${who.who(true)} ${who.does("wins")} the tournament and ${e.prize}`;
    }
    default:
      return null; // "turn" and kinds this client does not know
  }
}

function offered(people, e) {
  const who = people.player(e.player_id);
  return people.reader === null ? new Person(who.name, true) : who;
}

function action(p, e) {
  const who = p.who(true);
  switch (e.action) {
    case "fold": return `${who} ${p.does("folds")}`;
    case "check": return `${who} ${p.does("checks")}`;
    case "call": return `${who} ${p.does("calls")} ${e.amount ?? ""}`.trim() + (e.all_in ? ` and ${p.does("is")} all-in` : "");
    case "bet": return `${who} ${p.does("bets")} ${e.to}` + (e.all_in ? " (all-in)" : "");
    case "raise_to": return `${who} ${p.does("raises")} to ${e.to}` + (e.all_in ? " (all-in)" : "");
    default: return `${who} ${e.action}`;
  }
}

function power(p, e, people) {
  const name = POWER_NAMES[e.power] || e.power;
  const uses = `${p.who(true)} ${p.does("uses")}`;
  if (e.power === "short_anchor") return `${uses} Short Anchor on ${people.seat(e.target_seat).who()}`;
  if (e.power === "seal_shield") return `${uses} Seal Shield`;
  if (e.power === "sleeve_swap") return `${uses} Sleeve Swap (card ${Number(e.card_index) + 1})`;
  return `${uses} ${name} (${destellosLeft(e.destellos)})`;
}
