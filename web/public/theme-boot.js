// Applies the theme chosen in the dashboard's header (light or dark; none follows the system) before the first paint.
/* global document */
try {
  var t = localStorage.getItem("snip-theme");
  if (t === "light" || t === "dark") document.documentElement.setAttribute("data-theme", t);
} catch {
  // Storage refused (private mode, policy): the system setting applies.
}
