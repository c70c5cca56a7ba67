/* memproxy console: the little it does beyond htmx. Every page works without it.
   - htmx requests carry the CSRF token (read from <meta name="csrf-token">) in X-CSRF-Token;
   - "/" focuses the page's search box, Escape leaves it;
   - "Select all" checks every item of the review queue;
   - "Copy" puts a new key on the clipboard (the key is on the page, selectable, without it);
   - the light/dark toggle, remembered in localStorage (the system's choice until then). */
(function () {
  "use strict";

  var root = document.documentElement;
  var THEME_KEY = "memproxy-console-theme";
  try {
    var saved = window.localStorage.getItem(THEME_KEY);
    if (saved === "light" || saved === "dark") root.setAttribute("data-theme", saved);
  } catch (e) { /* storage off: the system's theme */ }

  function csrf() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.getAttribute("content") : "";
  }

  document.addEventListener("htmx:configRequest", function (event) {
    event.detail.headers["X-CSRF-Token"] = csrf();
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var typing = target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" ||
      target.tagName === "SELECT" || target.isContentEditable);
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      var search = document.getElementById("q");
      if (search) {
        event.preventDefault();
        search.focus();
        search.select();
      }
    } else if (event.key === "Escape" && target && target.id === "q") {
      target.blur();
    }
  });

  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!box || !box.hasAttribute || !box.hasAttribute("data-select-all")) return;
    var form = document.getElementById(box.getAttribute("data-select-all"));
    if (!form) return;
    var boxes = form.querySelectorAll('input[type="checkbox"][name="id"]');
    for (var i = 0; i < boxes.length; i++) boxes[i].checked = box.checked;
  });

  document.addEventListener("click", function (event) {
    var button = event.target && event.target.closest ? event.target.closest("[data-copy]") : null;
    if (!button || !navigator.clipboard) return;
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) return;
    navigator.clipboard.writeText(source.textContent).then(function () {
      button.textContent = "Copied";
    }, function () {
      button.textContent = "Select it and copy";
    });
  });

  function showCopy() {
    if (!navigator.clipboard) return;
    var buttons = document.querySelectorAll("[data-copy]");
    for (var i = 0; i < buttons.length; i++) buttons[i].hidden = false;
  }

  function current() {
    var set = root.getAttribute("data-theme");
    if (set) return set;
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  function showToggles() {
    var toggles = document.querySelectorAll("[data-theme-toggle]");
    for (var i = 0; i < toggles.length; i++) {
      toggles[i].hidden = false;
      toggles[i].setAttribute("aria-pressed", current() === "dark" ? "true" : "false");
    }
  }

  document.addEventListener("click", function (event) {
    var button = event.target && event.target.closest ? event.target.closest("[data-theme-toggle]") : null;
    if (!button) return;
    var next = current() === "dark" ? "light" : "dark";
    root.setAttribute("data-theme", next);
    try { window.localStorage.setItem(THEME_KEY, next); } catch (e) { /* not remembered */ }
    showToggles();
  });

  function ready() {
    showToggles();
    showCopy();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
