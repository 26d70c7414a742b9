// Memory Console: the little behaviour htmx does not cover. No inline handlers anywhere (CSP).
(function () {
  "use strict";
  var problem = function () { return document.getElementById("problem"); };

  function show(message) {
    var box = problem();
    if (!box) return;
    box.textContent = message;
    box.hidden = false;
  }

  // The console's own error answers (any status) carry a message that fits where it swaps.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    if (xhr && xhr.getResponseHeader("X-Console-Error")) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  // A request that failed (server error, 403, network) must not fail quietly.
  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    show(status === 403
      ? "You are not allowed to do that (or your session ended: reload the page)."
      : "Something went wrong (" + status + "). Reload the page and try again.");
  });
  document.addEventListener("htmx:sendError", function () {
    show("The server could not be reached. Check the connection and try again.");
  });
  document.addEventListener("htmx:beforeRequest", function () {
    var box = problem();
    if (box) box.hidden = true;
  });

  // Escape while editing a fact: same as pressing Cancel.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var form = event.target.closest && event.target.closest("li.editing");
    var cancel = form && form.querySelector("[data-cancel]");
    if (cancel) {
      event.preventDefault();
      cancel.click();
    }
  });
})();

// Copy buttons: <button data-copy="id-of-element"> copies that element's text.
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-copy]");
    if (!button) return;
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source || !navigator.clipboard) return;
    navigator.clipboard.writeText(source.textContent).then(function () {
      var label = button.textContent;
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = label; }, 2000);
    });
  });
})();

// The account links, the filters and a bot's less used pages (details.fold-narrow) fold away on
// a phone, unless one is marked data-on (the page being one of them), so the first fact is on the
// first screen; on a wider screen they stay open. Without JavaScript they are simply open.
(function () {
  "use strict";
  function fold() {
    var narrow = !window.matchMedia("(min-width: 40.01rem)").matches;
    document.querySelectorAll("details.fold-narrow").forEach(function (d) {
      if (!narrow) d.open = true;
      else if (!d.hasAttribute("data-on") && !d.hasAttribute("data-seen")) d.open = false;
      d.setAttribute("data-seen", "");
    });
  }
  document.addEventListener("DOMContentLoaded", fold);
  window.addEventListener("resize", fold);
})();
