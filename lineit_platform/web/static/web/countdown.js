// An upcoming tournament's "starts in 2 h 13 min" (server-rendered), kept current each half
// minute: the element with data-countdown holds the start as an ISO time.
(function () {
  "use strict";
  var element = document.querySelector("[data-countdown]");
  if (!element) return;
  var start = Date.parse(element.getAttribute("data-countdown"));
  if (isNaN(start)) return;
  function text() {
    var left = Math.floor((start - Date.now()) / 1000);
    if (left < 60) return "Starts in under a minute";
    var minutes = Math.floor(left / 60) % 60, hours = Math.floor(left / 3600) % 24, days = Math.floor(left / 86400);
    if (days) return "Starts in " + days + " d " + hours + " h";
    if (hours) return "Starts in " + hours + " h " + minutes + " min";
    return "Starts in " + minutes + " min";
  }
  function tick() {
    element.textContent = text();
  }
  tick();
  setInterval(tick, 30000);
})();
