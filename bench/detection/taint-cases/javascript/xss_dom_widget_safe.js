// ax-bench: safe CWE-79 — widget loader document.write()s a script tag whose locale a ternary picks from two constants
/* global document, location, window, URLSearchParams */

const WIDGET_BASE = "https://cdn.example.com/chat-widget/3.2";

(function loadWidget() {
  const params = new URLSearchParams(location.search);
  const requested = params.get("lang");
  const locale = requested === "de" ? "de" : "en";
  document.write('<link rel="stylesheet" href="' + WIDGET_BASE + '/widget.css">');
  document.write('<script src="' + WIDGET_BASE + "/i18n/" + locale + '.js"></script>'); // ax-bench: sink
  document.write('<script src="' + WIDGET_BASE + '/widget.js" defer></script>');
  window.chatWidgetConfig = {
    locale,
    position: "bottom-right",
  };
})();
