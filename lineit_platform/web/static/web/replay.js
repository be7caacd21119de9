/* The replay viewer: draws the positions the server computed with the engine (json_script
   "replay-data", view_version 1) and steps through them. It never plays the rules itself. */
(function () {
  "use strict";

  var dataNode = document.getElementById("replay-data");
  if (!dataNode) return;
  var view = JSON.parse(dataNode.textContent);
  if (view.view_version !== 1) {
    document.getElementById("replay-status").textContent = "This page cannot read replay view version " + view.view_version + ".";
    return;
  }
  var positions = view.positions;
  var decisions = view.decisions;
  var last = positions.length - 1;
  var COLOURS = ["red", "blue", "green", "yellow"];
  var SYMBOLS = { red: "♥", blue: "♦", green: "❦", yellow: "★" };
  var BET_VALUES = { 101: 3, 102: 3, 103: 4, 104: 4, 105: 5, 106: 5 };

  var board = document.getElementById("replay-board");
  var decisionBox = document.getElementById("replay-decision");
  var status = document.getElementById("replay-status");
  var slider = document.getElementById("replay-slider");
  var viewpointSelect = document.getElementById("replay-viewpoint");
  var permalink = document.getElementById("replay-permalink");
  var viewer = document.getElementById("viewer");

  var current = 0;
  var viewpoint = "all";

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function colourOf(card) {
    return card > 100 ? "bet" : COLOURS[(card % 4 + 3) % 4];
  }

  function label(card) {
    return card > 100 ? "B" + BET_VALUES[card] : String(card);
  }

  function cardNode(card, highlight) {
    var colour = colourOf(card);
    var node = el("span", "card card-" + colour + (highlight ? " card-new" : ""), label(card));
    node.title = card > 100 ? "bet card " + BET_VALUES[card] : colour + " " + card;
    return node;
  }

  function backNode() {
    var node = el("span", "card card-back", "?");
    node.title = "face down (known to a player who remembers the market)";
    return node;
  }

  function cardsNode(cards, options) {
    options = options || {};
    var box = el("div", "cards");
    if (!cards.length) box.appendChild(el("span", "none", options.empty || "empty"));
    cards.forEach(function (card) {
      box.appendChild(options.hidden ? backNode() : cardNode(card, card === options.highlight));
    });
    if (options.label) box.setAttribute("aria-label", options.label);
    return box;
  }

  function actionCard(action) {
    var parts = action ? action.split(" ") : [];
    return parts.length > 1 ? Number(parts[1]) : null;
  }

  function zone(title, content) {
    var box = el("section", "zone");
    box.appendChild(el("h3", null, title));
    box.appendChild(content);
    return box;
  }

  function signed(value) {
    return (value > 0 ? "+" : "−") + Math.abs(value);
  }

  function playerNode(position, seat, next) {
    var player = position.players[seat];
    var box = el("article", "player");
    box.setAttribute("aria-label", "Seat " + seat + ": " + view.players[seat]);
    if (position.current === seat) box.classList.add("to-play");
    if (viewpoint !== "all" && Number(viewpoint) === seat) box.classList.add("viewer-seat");
    var head = el("div", "player-head");
    var name = el("span", "player-name", view.players[seat]);
    var who = el("span", null);
    who.appendChild(name);
    who.appendChild(el("span", "muted small", " seat " + seat + (position.current === seat ? " · to play" : "") +
      (position.first === seat ? " · first this round" : "")));
    head.appendChild(who);
    var score = el("span", "player-score");
    score.appendChild(el("strong", null, String(player.score)));
    score.appendChild(el("span", "muted small", " (" + player.pile + " in pile)"));
    player.tokens.forEach(function (token) {
      score.appendChild(document.createTextNode(" "));
      score.appendChild(el("span", "token-chip" + (token < 0 ? " negative" : ""), signed(token)));
    });
    head.appendChild(score);
    box.appendChild(head);

    var lineLabel = el("div", "row-label");
    lineLabel.appendChild(el("span", null, "Line"));
    var direction = player.direction === "up" ? "↑ ascending" : player.direction === "down" ? "↓ descending" : player.line.length ? "no direction yet" : "";
    if (direction) lineLabel.appendChild(el("span", "direction", direction));
    if (player.bet) lineLabel.appendChild(el("span", null, "bet " + label(player.bet) + ": " + player.after_bet + " of " + BET_VALUES[player.bet] + " after it"));
    var counts = [];
    player.colours.forEach(function (count, index) { if (count) counts.push(SYMBOLS[COLOURS[index]] + count); });
    if (counts.length) lineLabel.appendChild(el("span", null, counts.join(" ")));
    box.appendChild(lineLabel);
    box.appendChild(cardsNode(player.line, { empty: "empty line", label: "line of seat " + seat }));

    box.appendChild(el("div", "row-label", "Hand"));
    var hidden = viewpoint !== "all" && Number(viewpoint) !== seat;
    var playCard = next && next.seat === seat && next.action.indexOf("play ") === 0 ? actionCard(next.action) : null;
    box.appendChild(cardsNode(player.hand, { empty: "no cards", hidden: hidden, highlight: playCard, label: "hand of seat " + seat }));
    return box;
  }

  function drawBoard(position, next) {
    board.textContent = "";
    var centre = el("div", "table-centre");
    var market = el("div");
    var takeCard = next && next.action.indexOf("take ") === 0 ? actionCard(next.action) : null;
    market.appendChild(cardsNode(position.market, { empty: position.phase === "final" || position.phase === "over" ? "no market: the draw pile is spent" : "empty", highlight: takeCard, label: "market" }));
    market.appendChild(el("p", "muted small", "Draw pile: " + position.draw + " cards"));
    centre.appendChild(zone("Market", market));
    var jackpots = el("div", "jackpots");
    COLOURS.forEach(function (colour, index) {
      var pile = position.jackpots[index];
      var box = el("div", "jackpot");
      box.appendChild(el("span", "jackpot-name " + colour, SYMBOLS[colour] + " " + colour + " (" + pile.length + ")"));
      box.appendChild(cardsNode(pile, { empty: "empty", label: colour + " jackpot" }));
      jackpots.appendChild(box);
    });
    centre.appendChild(zone("Jackpots", jackpots));
    board.appendChild(centre);
    var players = el("div", "players");
    for (var seat = 0; seat < view.num_players; seat++) players.appendChild(playerNode(position, seat, next));
    board.appendChild(players);
  }

  function drawDecision(position, next) {
    decisionBox.textContent = "";
    if (!next) {
      decisionBox.appendChild(el("h3", null, "End of the game"));
      var order = view.players.map(function (name, seat) { return seat; });
      order.sort(function (a, b) { return view.ranks[a] - view.ranks[b] || a - b; });
      var list = el("ol", "result");
      order.forEach(function (seat) {
        var item = el("li", view.ranks[seat] === 1 ? "winner" : null);
        item.appendChild(el("span", "rank", "#" + view.ranks[seat] + " "));
        item.appendChild(document.createTextNode(view.players[seat] + ": "));
        item.appendChild(el("strong", null, String(view.scores[seat])));
        if (view.forfeits.indexOf(seat) >= 0) item.appendChild(el("span", "badge badge-failed", "forfeit"));
        list.appendChild(item);
      });
      decisionBox.appendChild(list);
      return;
    }
    decisionBox.appendChild(el("h3", null, "Decision " + current + ": " + next.text));
    next.effects.forEach(function (effect) { decisionBox.appendChild(el("span", "effect", "→ " + effect)); });
    if (position.legal.length > 1) {
      var legal = el("p", "legal");
      legal.appendChild(document.createTextNode("Choices: "));
      position.legal.forEach(function (action, index) {
        if (index) legal.appendChild(document.createTextNode(" "));
        legal.appendChild(el("code", action === next.action ? "chosen" : null, action));
      });
      decisionBox.appendChild(legal);
    }
  }

  function describePosition(position, next) {
    if (!next) return "End of the game · " + last + " decisions";
    var where = next.final ? "final plays" : "round " + next.round + " of " + view.rounds;
    return "Decision " + current + " (of 0–" + (last - 1) + ") · " + where + " · " + view.players[next.seat] + " (seat " + next.seat + ") to decide";
  }

  function render() {
    var position = positions[current];
    var next = current < last ? decisions[current] : null;
    drawBoard(position, next);
    drawDecision(position, next);
    status.textContent = describePosition(position, next);
    slider.value = String(current);
    slider.setAttribute("aria-valuetext", status.textContent);
    viewpointSelect.value = viewpoint;
    var hash = "#d=" + current + (viewpoint === "all" ? "" : "&seat=" + viewpoint);
    permalink.href = hash;
    if (location.hash !== hash) history.replaceState(null, "", hash);
    viewer.querySelectorAll("[data-step]").forEach(function (button) {
      var back = /^(start|prev)/.test(button.getAttribute("data-step"));
      button.disabled = back ? current === 0 : current === last;
    });
    var old = document.querySelector(".log-list li.current");
    if (old) old.classList.remove("current");
    var entry = document.getElementById("log-" + current);
    if (entry) {
      entry.classList.add("current");
      entry.closest("details").open = true;
    }
  }

  function go(index) {
    current = Math.max(0, Math.min(last, index));
    render();
  }

  function turnStart(index) {
    var turn = decisions[index].turn;
    while (index > 0 && decisions[index - 1].turn === turn) index--;
    return index;
  }

  function nextTurn() {
    if (current >= last) return last;
    var turn = decisions[current].turn;
    var index = current;
    while (index < last && decisions[index].turn === turn) index++;
    return index;
  }

  function previousTurn() {
    if (current === 0) return 0;
    var start = turnStart(current === last ? last - 1 : current);
    if (start < current) return start;
    return turnStart(current - 1);
  }

  function roundKey(index) {
    return index >= last ? "end" : decisions[index].final ? "final" : String(decisions[index].round);
  }

  function nextRound() {
    var key = roundKey(current);
    var index = current;
    while (index < last && roundKey(index) === key) index++;
    return index;
  }

  function previousRound() {
    var index = current;
    var key = roundKey(index);
    while (index > 0 && roundKey(index - 1) === key) index--;
    if (index < current) return index;
    if (index === 0) return 0;
    key = roundKey(index - 1);
    while (index > 0 && roundKey(index - 1) === key) index--;
    return index;
  }

  var steps = {
    start: function () { return 0; },
    end: function () { return last; },
    prev: function () { return current - 1; },
    next: function () { return current + 1; },
    "prev-turn": previousTurn,
    "next-turn": nextTurn,
    "prev-round": previousRound,
    "next-round": nextRound,
  };

  viewer.querySelectorAll("[data-step]").forEach(function (button) {
    button.addEventListener("click", function () { go(steps[button.getAttribute("data-step")]()); });
  });
  slider.addEventListener("input", function () { go(Number(slider.value)); });
  viewpointSelect.addEventListener("change", function () { viewpoint = viewpointSelect.value; render(); });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    var tag = target && target.tagName;
    if (tag === "SELECT" || tag === "TEXTAREA" || (tag === "INPUT" && target.type !== "range")) return;
    var step = null;
    switch (event.key) {
      case "ArrowLeft": step = event.shiftKey ? "prev-turn" : "prev"; break;
      case "ArrowRight": step = event.shiftKey ? "next-turn" : "next"; break;
      case "ArrowUp": step = "prev-turn"; break;
      case "ArrowDown": step = "next-turn"; break;
      case "PageUp": step = "prev-round"; break;
      case "PageDown": step = "next-round"; break;
      case "Home": step = "start"; break;
      case "End": step = "end"; break;
      case "a": viewpoint = "all"; render(); event.preventDefault(); return;
      default:
        if (/^[0-9]$/.test(event.key) && Number(event.key) < view.num_players) {
          viewpoint = event.key; render(); event.preventDefault();
        }
        return;
    }
    event.preventDefault();
    go(steps[step]());
  });

  function readHash() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    var index = parseInt(params.get("d"), 10);
    var seat = params.get("seat");
    viewpoint = seat !== null && /^[0-9]$/.test(seat) && Number(seat) < view.num_players ? seat : "all";
    return isNaN(index) ? 0 : index;
  }

  window.addEventListener("hashchange", function () { go(readHash()); });
  go(readHash());
})();
