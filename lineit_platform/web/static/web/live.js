/* Follow a pending match, tournament or version without reloading: poll the JSON named by the
   element's data-live attribute every few seconds, write its "text" into [data-live-text], its
   games into [data-live-progress] and its live games into [data-live-games]; when its "state"
   differs from data-live-state (the match started, ended or was tried again; a tournament's round
   changed), load the page once more to show what happened. Without JavaScript the page says to
   reload it. */
(function () {
  "use strict";
  var region = document.querySelector("[data-live]");
  if (!region || !window.fetch) return;
  var url = region.getAttribute("data-live");
  var state = region.getAttribute("data-live-state");
  var every = 2000;
  var text = region.querySelector("[data-live-text]");
  var bar = region.querySelector("[data-live-progress]");
  var games = region.querySelector("[data-live-games]");

  function showGames(list) {
    if (!games || !list || !list.length) return;
    var ul = games.querySelector("ul");
    var shown = ul.children.length;
    for (var i = shown; i < list.length; i++) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = list[i].url;
      a.textContent = "Game " + list[i].index;
      a.setAttribute("aria-label", "Watch game " + list[i].index + " (scores " + list[i].scores.join(", ") + ")");
      li.appendChild(a);
      ul.appendChild(li);
    }
    games.hidden = false;
  }

  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.json();
      })
      .then(function (data) {
        if (data.state !== state) {
          location.reload();
          return;
        }
        if (text && data.text) text.textContent = data.text;
        if (bar && typeof data.games_played === "number") {
          bar.value = data.games_played;
          bar.textContent = data.games_played + " of " + data.games;
        }
        showGames(data.live_games);
        setTimeout(poll, every);
      })
      .catch(function () { setTimeout(poll, every * 3); });
  }
  setTimeout(poll, every);
})();
