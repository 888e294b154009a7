// GET /_snip/track.js (docs/conversions.md, The script): the destination site's own script. It reads the click id
// from the page's address, keeps it in a first-party cookie of that site for the attribution window, and exposes
// it as window.snip.clickId(). snip's own host sets no cookie for this: the cookie is written by the page.
// Attributes of its <script> tag: data-param (default snip_id), data-days (default 90), data-domain (a parent
// domain to share the cookie with its subdomains; default: the page's host alone).

export const TRACK_SCRIPT_PATH = "/_snip/track.js";

/** The cookie the script keeps the click id in, on the destination's site. */
export const TRACK_COOKIE = "snip_click_id";

export const TRACK_SCRIPT = `/* snip conversion tracking: docs/conversions.md */
(function () {
  var s = document.currentScript, param = "snip_id", days = 90, domain = "", id = null;
  if (s) {
    param = s.getAttribute("data-param") || param;
    var d = parseInt(s.getAttribute("data-days") || "", 10);
    if (d > 0 && d <= 3650) days = d;
    domain = s.getAttribute("data-domain") || "";
  }
  var ok = /^[A-Za-z0-9_-]{16,64}$/;
  try {
    var q = new URLSearchParams(window.location.search).get(param);
    if (q && ok.test(q)) {
      id = q;
      document.cookie = "${TRACK_COOKIE}=" + q + "; Max-Age=" + days * 86400 + "; Path=/; SameSite=Lax" +
        (/^[A-Za-z0-9.-]+$/.test(domain) ? "; Domain=" + domain : "") + (window.location.protocol === "https:" ? "; Secure" : "");
    }
  } catch (e) {}
  if (id === null) {
    var m = /(?:^|;\\s*)${TRACK_COOKIE}=([A-Za-z0-9_-]+)/.exec(document.cookie);
    if (m && ok.test(m[1])) id = m[1];
  }
  window.snip = window.snip || {};
  window.snip.clickId = function () { return id; };
})();
`;
