/* The replay viewer: draws the positions the server computed with the engine (fetched as JSON
   from the viewer's data-view-url, view_version 2: lineit_platform/web/replay.py) and steps
   through them, by hand or playing by itself, with a chart of the scores. It never plays the
   rules itself. */
(function () {
  "use strict";

  var viewer = document.getElementById("viewer");
  if (!viewer || !viewer.getAttribute("data-view-url")) return;
  var status = document.getElementById("replay-status");
  status.textContent = "Loading the game…";
  fetch(viewer.getAttribute("data-view-url"), { headers: { Accept: "application/json" }, credentials: "same-origin" })
    .then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw new Error(body.error || "the server answered " + response.status);
        return body;
      });
    })
    .then(start, function (error) {
      status.textContent = "The board cannot be drawn: " + error.message + ". The list of decisions below still works.";
    });

  function start(view) {
    if (view.view_version !== 2) {
      status.textContent = "This page cannot read replay view version " + view.view_version + ".";
      return;
    }
    var positions = view.positions;
    var decisions = view.decisions;
    var last = positions.length - 1;
    var COLOURS = ["red", "blue", "green", "yellow"];
    var SYMBOLS = { red: "♥", blue: "♦", green: "❦", yellow: "★" };
    var BET_VALUES = { 101: 3, 102: 3, 103: 4, 104: 4, 105: 5, 106: 5 };
    var SVG = "http://www.w3.org/2000/svg";

    var board = document.getElementById("replay-board");
    var decisionBox = document.getElementById("replay-decision");
    var slider = document.getElementById("replay-slider");
    var viewpointSelect = document.getElementById("replay-viewpoint");
    var permalink = document.getElementById("replay-permalink");
    var playButton = document.getElementById("replay-play");
    var speedSelect = document.getElementById("replay-speed");
    var chart = document.getElementById("replay-chart");
    var marker = null;
    var timer = null;

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
      node.title = card > 100 ? "bet card " + BET_VALUES[card] : colour + " " + card + " (" + SYMBOLS[colour] + ")";
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
      if (player.bet) lineLabel.appendChild(el("span", "bet-text", player.bet_text));
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
      if (marker) {
        var x = chartX(current);
        marker.setAttribute("x1", x);
        marker.setAttribute("x2", x);
      }
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

    // Autoplay: one decision every speedSelect.value milliseconds, until the end or a pause.
    function setPlaying(on) {
      if (timer) clearTimeout(timer);
      timer = null;
      playButton.setAttribute("aria-pressed", on ? "true" : "false");
      playButton.lastChild.textContent = on ? " Pause" : " Play";
      playButton.firstChild.textContent = on ? "❚❚" : "▶";
      if (on) timer = setTimeout(tick, Number(speedSelect.value));
    }

    function tick() {
      if (current >= last) { setPlaying(false); return; }
      go(current + 1);
      setPlaying(current < last);
    }

    function togglePlaying() {
      var on = playButton.getAttribute("aria-pressed") !== "true";
      if (on && current >= last) go(0);
      setPlaying(on);
    }

    playButton.addEventListener("click", togglePlaying);
    speedSelect.addEventListener("change", function () {
      if (playButton.getAttribute("aria-pressed") === "true") setPlaying(true);
    });

    // The score chart: each seat's score at every position, one line per seat (each its own dash
    // as well as its colour), the rounds marked, and a marker at the position shown.
    var CHART = { width: 720, height: 190, left: 34, right: 10, top: 10, bottom: 24 };
    var scores = positions.map(function (position) { return position.players.map(function (p) { return p.score; }); });
    var low = Math.min(0, Math.min.apply(null, scores.map(function (s) { return Math.min.apply(null, s); })));
    var high = Math.max(1, Math.max.apply(null, scores.map(function (s) { return Math.max.apply(null, s); })));

    function chartX(index) {
      return (CHART.left + (CHART.width - CHART.left - CHART.right) * (last ? index / last : 0)).toFixed(1);
    }

    function chartY(score) {
      return (CHART.top + (CHART.height - CHART.top - CHART.bottom) * (1 - (score - low) / (high - low))).toFixed(1);
    }

    function svg(tag, attributes, text) {
      var node = document.createElementNS(SVG, tag);
      Object.keys(attributes).forEach(function (name) { node.setAttribute(name, attributes[name]); });
      if (text !== undefined) node.textContent = text;
      return node;
    }

    function drawChart() {
      var finalScores = view.players.map(function (name, seat) { return name + " " + view.scores[seat]; }).join(", ");
      var root = svg("svg", { viewBox: "0 0 " + CHART.width + " " + CHART.height, role: "img", "aria-label": "Scores over the game; final scores: " + finalScores, id: "replay-chart-svg" });
      var step = Math.max(1, Math.ceil((high - low) / 4));
      for (var value = Math.ceil(low / step) * step; value <= high; value += step) {
        root.appendChild(svg("line", { class: "grid", x1: CHART.left, x2: CHART.width - CHART.right, y1: chartY(value), y2: chartY(value) }));
        root.appendChild(svg("text", { class: "tick", x: CHART.left - 6, y: Number(chartY(value)) + 4, "text-anchor": "end" }, String(value)));
      }
      var labelledAt = -Infinity;
      decisions.forEach(function (decision, index) {
        var previous = index ? decisions[index - 1] : null;
        if (previous && (decision.round === previous.round && decision.final === previous.final)) return;
        var x = Number(chartX(index));
        root.appendChild(svg("line", { class: "round-line", x1: x, x2: x, y1: CHART.top, y2: CHART.height - CHART.bottom }));
        if (x - labelledAt < 34) return;  // labels no closer than their width
        labelledAt = x;
        root.appendChild(svg("text", { class: "tick", x: x + 3, y: CHART.height - 8 }, decision.final ? "final" : "R" + decision.round));
      });
      view.players.forEach(function (name, seat) {
        var points = scores.map(function (s, index) { return chartX(index) + "," + chartY(s[seat]); }).join(" ");
        var line = svg("polyline", { class: "series series-" + seat, points: points, fill: "none" });
        line.appendChild(svg("title", {}, "seat " + seat + ": " + name));
        root.appendChild(line);
      });
      marker = svg("line", { class: "marker", y1: CHART.top, y2: CHART.height - CHART.bottom, x1: chartX(current), x2: chartX(current) });
      root.appendChild(marker);
      root.addEventListener("click", function (event) {
        var box = root.getBoundingClientRect();
        var x = (event.clientX - box.left) * CHART.width / box.width;
        go(Math.round((x - CHART.left) / (CHART.width - CHART.left - CHART.right) * last));
      });
      chart.insertBefore(root, chart.firstChild);
      var legend = el("ul", "legend");
      view.players.forEach(function (name, seat) {
        var item = el("li");
        var sample = svg("svg", { class: "series-sample", viewBox: "0 0 24 8", "aria-hidden": "true" });
        sample.appendChild(svg("line", { class: "series series-" + seat, x1: 0, x2: 24, y1: 4, y2: 4 }));
        item.appendChild(sample);
        item.appendChild(document.createTextNode("seat " + seat + ": " + name + " (" + view.scores[seat] + ")"));
        legend.appendChild(item);
      });
      chart.appendChild(legend);
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
        case "p": togglePlaying(); event.preventDefault(); return;
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
    drawChart();
    go(readHash());
  }
})();
