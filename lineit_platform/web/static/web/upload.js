/* Upload with a progress bar, then follow the validation until it has a result. Without this
   script the form posts normally and the version page refreshes itself while validating. */
(function () {
  "use strict";
  var form = document.getElementById("upload-form");
  if (!form || !window.XMLHttpRequest || !window.FormData) return;
  var progress = document.getElementById("upload-progress");
  var bar = document.getElementById("upload-bar");
  var result = document.getElementById("upload-result");
  var button = form.querySelector("button[type=submit]");

  function show(className, text, link) {
    result.textContent = "";
    var p = document.createElement("p");
    p.className = className;
    p.textContent = text;
    if (link) {
      p.appendChild(document.createTextNode(" "));
      var a = document.createElement("a");
      a.href = link.href;
      a.textContent = link.text;
      p.appendChild(a);
    }
    result.appendChild(p);
    return p;
  }

  function poll(statusUrl, label) {
    fetch(statusUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.json(); })
      .then(function (data) {
        if (data.status === "validating") {
          setTimeout(function () { poll(statusUrl, label); }, 1000);
          return;
        }
        if (data.status === "rejected") {
          var node = show("error-text", label + " was rejected: " + data.rejection_reason, { href: data.url, text: "See the report." });
          node.setAttribute("role", "alert");
          if (data.message) {  /* the owner's only, like the stderr */
            var message = document.createElement("p");
            message.className = "error-text";
            message.textContent = data.message;
            result.appendChild(message);
          }
          if (data.stderr) {
            var pre = document.createElement("pre");
            pre.className = "stderr";
            pre.textContent = data.stderr;
            result.appendChild(pre);
          }
        } else {
          show("ok-text", label + " passed validation and is " + data.status + ".", { href: data.url, text: "Open " + label + "." });
        }
        button.disabled = false;
      })
      .catch(function () { setTimeout(function () { poll(statusUrl, label); }, 3000); });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var request = new XMLHttpRequest();
    request.open("POST", form.action || location.href);
    request.setRequestHeader("Accept", "application/json");
    request.upload.addEventListener("progress", function (e) {
      if (e.lengthComputable) {
        bar.value = Math.round((100 * e.loaded) / e.total);
        bar.textContent = bar.value + "%";
      }
    });
    request.addEventListener("load", function () {
      var data = {};
      try { data = JSON.parse(request.responseText); } catch (ignored) { data = { errors: ["The server answered " + request.status + "."] }; }
      if (request.status === 201) {
        bar.value = 100;
        progress.querySelector("label").textContent = "Uploaded";
        var node = show("", "Uploaded as " + data.label + ". Validating: it plays a game against itself in the sandbox…");
        node.setAttribute("role", "status");
        var spinner = document.createElement("span");
        spinner.className = "spinner";
        spinner.setAttribute("aria-hidden", "true");
        node.insertBefore(spinner, node.firstChild);
        node.insertBefore(document.createTextNode(" "), spinner.nextSibling);
        poll(data.status_url, data.label);
      } else {
        progress.hidden = true;
        show("error-text", (data.errors || ["Upload failed."]).join(" ")).setAttribute("role", "alert");
        button.disabled = false;
      }
    });
    request.addEventListener("error", function () {
      progress.hidden = true;
      show("error-text", "The upload failed: the connection broke.").setAttribute("role", "alert");
      button.disabled = false;
    });
    button.disabled = true;
    progress.hidden = false;
    progress.querySelector("label").textContent = "Uploading";
    bar.value = 0;
    result.textContent = "";
    request.send(new FormData(form));
  });
})();
