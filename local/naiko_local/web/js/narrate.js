// narrate.js: the events of an update (protocol.md §8) as sentences for the table's log.
// Unknown kinds are skipped: the server may add some.

export const POWER_NAMES = {
  peek: "Peek", sleeve_swap: "Sleeve Swap", short_anchor: "Short Anchor", seal_shield: "Seal Shield",
};

/** Destellos each power costs (R5.7, R6.1-R6.4). */
export const POWER_COSTS = { peek: 1, sleeve_swap: 2, short_anchor: 2, seal_shield: 1 };

const STREETS = { flop: "Flop", turn: "Turn", river: "River" };

function cardsText(cards) {
  return (cards || "").match(/.{2}/g)?.join(" ") || "";
}

/**
 * Turn events into sentences.
 * @param {object[]} events  the update's events, in order
 * @param {(seat: number) => string} nameOf  a seat's player name (from the view)
 * @param {number|null} mySeat  the viewer's seat
 * @returns {string[]}
 */
export function narrate(events, nameOf, mySeat) {
  const lines = [];
  for (const e of events || []) {
    const line = sentence(e, nameOf, mySeat);
    if (line) lines.push(...String(line).split("\n"));
  }
  return lines;
}

function sentence(e, nameOf, mySeat) {
  const who = e.seat_index !== undefined && e.seat_index !== null ? nameOf(e.seat_index) : "";
  const allIn = e.all_in ? " and is all-in" : "";
  switch (e.kind) {
    case "seated":
      return `${e.player_id}${e.is_bot ? " (BOT)" : ""} sits down with ${e.stack}`;
    case "hand_started":
      return `— Hand #${e.hand_number}: blinds ${e.small_blind}/${e.big_blind}` +
        (e.ante ? ` ante ${e.ante}` : "") + " —";
    case "blind_posted":
      if (e.blind === "post") return `${who} posts a big blind of ${e.amount} to come in${allIn}`;
      if (e.blind === "dead") return `${who} posts a dead small blind of ${e.amount}${allIn}`;
      return `${who} posts the ${e.blind} blind of ${e.amount}${allIn}`;
    case "ante_posted":
      return `${who} posts an ante of ${e.amount}${allIn}`;
    case "deck_committed": // R10.2: the deck is fixed before the first card (docs/fairness.md)
      return `Deck committed before the deal: ${String(e.root).slice(0, 16)}…`;
    case "hole_cards":
      return `You are dealt ${cardsText(e.cards)}`;
    case "carousel":
      return "Carousel: " + (e.powers || []).map((p) => POWER_NAMES[p] || p).join(", ");
    case "action":
      return action(who, e);
    case "board_dealt":
      return `${STREETS[e.street] || e.street}: ${cardsText(e.cards)}${e.run_out ? " (run out)" : ""}`;
    case "uncalled_bet_returned":
      return `${e.amount} uncalled returned to ${who}`;
    case "showdown":
      return (e.hands || []).map((hand) =>
        `${nameOf(hand.seat_index)} shows ${cardsText(hand.cards)}: ${hand.hand || ""}`).join("\n");
    case "pot_awarded": {
      const winners = Object.entries(e.winners || {})
        .map(([seat, amount]) => `${nameOf(Number(seat))} wins ${amount}`);
      const pot = e.pot_index ? `side pot ${e.pot_index}` : "the pot";
      return `${winners.join(", ")} (${pot} of ${e.amount}${e.showdown ? "" : ", uncontested"})`;
    }
    case "hand_ended":
      return `Hand #${e.hand_number} is over`;
    case "hand_cancelled":
      return `Hand #${e.hand_number} was cancelled (${e.reason}): every bet was returned`;
    case "power_used":
      return power(who, e, nameOf, mySeat);
    case "peek_result":
      return `You peek: ${e.card} will come on the ${e.street}`;
    case "sleeve_swap_result":
      return `You swap ${e.discarded} for ${e.received}: your cards are now ${cardsText(e.cards)}`;
    case "window_opened":
      return `${nameOf(e.target)} may answer ${nameOf(e.attacker)}'s Short Anchor with Seal Shield`;
    case "window_closed":
      return {
        shielded: `${nameOf(e.target)} shields: the Short Anchor is cancelled`,
        passed: `${nameOf(e.target)} lets the Short Anchor apply`,
        acted: `${nameOf(e.target)} acted: the Short Anchor applies`,
        timed_out: `The Shield window closed: the Short Anchor applies`,
        round_ended: `The betting round ended: the Short Anchor expires`,
      }[e.reason] || "The Shield window closed";
    case "anchor_applied":
      return `${nameOf(e.attacker)}'s Short Anchor caps ${nameOf(e.target)}'s raises this round`;
    case "timed_out":
      return `${who}'s clock ran out: ${who} ${e.decision === "check" ? "checks" : "folds"}`;
    case "disconnected":
      return `${e.player_id} lost the connection`;
    case "reconnect_grace":
      return `${who} is disconnected: extra time to reconnect`;
    case "reconnected":
      return `${e.player_id} is back`;
    case "sat_out":
      return `${who} sits out`;
    case "sat_in":
      return `${who} is dealt in again`;
    case "chips_added":
      return `${who} adds ${e.amount} (stack ${e.stack})`;
    case "leaving_after_hand":
      return `${who} will leave after this hand`;
    case "stood_up":
      return `${e.player_id} stands up with ${e.stack}`;
    case "left_table":
      return `${e.player_id} left the table` + (e.reason && e.reason !== "left" ? ` (${e.reason})` : "");
    case "table_closed":
      return e.reason === "host" ? "The host closed the table" : "The table closed";
    case "entry_chosen":
      return e.entry === "post" ? `${who} will post to be dealt in` : `${who} will wait for the big blind`;
    case "waitlist_changed":
      return (e.waitlist || []).length ? `Waiting list: ${e.waitlist.join(", ")}` : "The waiting list is empty";
    case "seat_offered":
      return `A seat is held for ${e.player_id}`;
    case "offer_expired":
      return `The seat held for ${e.player_id} went to the next in line`;
    case "host_changed":
      return `${e.host} is now the host`;
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
    case "eliminated":
      return `${e.player_id} is out in place ${e.place}` + (e.prize ? `, winning ${e.prize}` : "");
    case "tournament_finished":
      return `${e.winner} wins the tournament and ${e.prize}`;
    default:
      return null; // "turn" and kinds this client does not know
  }
}

function action(who, e) {
  switch (e.action) {
    case "fold": return `${who} folds`;
    case "check": return `${who} checks`;
    case "call": return `${who} calls ${e.amount ?? ""}`.trim() + (e.all_in ? " and is all-in" : "");
    case "bet": return `${who} bets ${e.to}` + (e.all_in ? " (all-in)" : "");
    case "raise_to": return `${who} raises to ${e.to}` + (e.all_in ? " (all-in)" : "");
    default: return `${who} ${e.action}`;
  }
}

function power(who, e, nameOf, mySeat) {
  const name = POWER_NAMES[e.power] || e.power;
  if (e.power === "short_anchor") return `${who} uses Short Anchor on ${nameOf(e.target_seat)}`;
  if (e.power === "seal_shield") return `${who} uses Seal Shield`;
  if (e.power === "sleeve_swap") return `${who} uses Sleeve Swap (card ${Number(e.card_index) + 1})`;
  return `${who} uses ${name} (${e.destellos} destellos left)`;
}
