// engrain's local page: the little it does in the browser. Dates are shown in the reader's language;
// "/" focuses the search box. No other script runs on the page (its Content-Security-Policy allows this file only).
"use strict";
(function () {
  const languages = navigator.languages && navigator.languages.length ? navigator.languages : undefined;
  const options = { dateStyle: "medium" };
  const zone = document.documentElement.dataset.tz;
  let format;
  try {
    format = new Intl.DateTimeFormat(languages, zone ? Object.assign({ timeZone: zone }, options) : options);
  } catch (error) {  // a zone the browser does not know: its own
    format = new Intl.DateTimeFormat(languages, options);
  }
  for (const el of document.querySelectorAll("time[datetime]")) {
    const when = new Date(el.getAttribute("datetime"));
    if (!Number.isNaN(when.getTime())) {
      el.title = el.getAttribute("datetime");
      el.textContent = format.format(when);
    }
  }
  document.addEventListener("keydown", function (event) {
    const search = document.getElementById("q");
    if (event.key === "/" && search && document.activeElement !== search && !/^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName)) {
      event.preventDefault();
      search.focus();
    }
  });
})();
