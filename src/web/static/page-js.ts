/**
 * The page's script, served as /static/page.js: it only enhances. Each
 * countdown ("in 5 days") is kept current while the page stays open, and a
 * deadline's time is said in the reader's own zone as a tooltip. Without it
 * the server's countdown of the moment the page was made stands.
 */
export const PAGE_SCRIPT = `'use strict';
(function () {
  var MINUTE = 60000, HOUR = 60 * MINUTE, DAY = 24 * HOUR;
  function left(deadline, now) {
    var dateOnly = /^\\d{4}-\\d{2}-\\d{2}$/.test(deadline);
    var at = Date.parse(dateOnly ? deadline + 'T00:00:00Z' : deadline) + (dateOnly ? DAY - 1 : 0);
    if (isNaN(at)) return null;
    var ms = at - now;
    if (ms <= 0) return 'closed';
    var n, unit;
    if (ms >= 2 * DAY) { n = Math.floor(ms / DAY); unit = 'day'; }
    else if (ms >= 2 * HOUR) { n = Math.floor(ms / HOUR); unit = 'hour'; }
    else { n = Math.max(1, Math.floor(ms / MINUTE)); unit = 'minute'; }
    return 'in ' + n + ' ' + unit + (n === 1 ? '' : 's');
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll('.countdown[data-deadline]').forEach(function (el) {
      var text = left(el.getAttribute('data-deadline'), now);
      if (text === null) return;
      el.textContent = text;
      el.classList.toggle('closed', text === 'closed');
    });
  }
  function zones() {
    document.querySelectorAll('time[datetime*="T"]').forEach(function (el) {
      var at = new Date(el.getAttribute('datetime'));
      if (!isNaN(at.getTime())) el.title = at.toLocaleString();
    });
  }
  document.addEventListener('DOMContentLoaded', function () {
    tick();
    zones();
    setInterval(tick, MINUTE);
  });
})();
`;
