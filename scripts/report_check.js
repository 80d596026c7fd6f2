// Checks the HTML report from inside the page (appended by
// report_screenshots.sh to a copy of it): every section is there and each
// chart has data, the trace link and glossary exist, the bricks table
// sorts, and nothing overflows the window. The result goes into
// body[data-selfcheck] as JSON, which --dump-dom shows.
(function () {
  "use strict";
  var problems = [];
  function need(ok, what) { if (!ok) { problems.push(what); } }
  function $(sel, root) { return (root || document).querySelector(sel); }
  function $$(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }

  ["run", "scorecard", "steps", "layers", "hotspots", "latency", "flamegraph", "bricks",
   "counters", "glossary"].forEach(function (id) {
    need(document.getElementById(id), "section #" + id + " is missing");
  });

  var steps = $("#steps");
  if (steps) {
    var charts = $$("svg.line-chart", steps);
    need(charts.length === 2, "steps: expected the step-time and tok/s charts, found " + charts.length);
    charts.forEach(function (c, i) {
      need($("polyline.line, polygon.envelope", c), "steps chart " + i + ": no series drawn");
      need($("line.ref.median", c), "steps chart " + i + ": no median line");
      need($("rect.band", c), "steps chart " + i + ": no p90 band");
      need($("rect.left-out", c), "steps chart " + i + ": warm-up not shaded");
      need($$("circle.spike", c).length > 0, "steps chart " + i + ": no slow step marked");
    });
  }

  var layers = $("#layers");
  need(layers && $$("rect.bar", layers).length > 0, "layers: no bars");

  var latency = $("#latency");
  if (latency) {
    var rows = $$("g.brick-row", latency);
    need(rows.length >= 5, "latency: " + rows.length + " brick rows");
    rows.forEach(function (row, i) {
      need($$("rect.bin", row).length > 0, "latency row " + i + ": no histogram bars");
      need($$("rect.mark", row).length === 4, "latency row " + i + ": p50/p90/p99/max marks");
    });
  }

  var counters = $("#counters");
  if (counters) {
    var svgs = $$("svg.counter-chart", counters);
    need(svgs.length >= 2, "counters: " + svgs.length + " charts (expected loss and tok/s)");
    svgs.forEach(function (c, i) {
      need($("polyline.line, polygon.envelope, circle.dot", c), "counter chart " + i + ": no series");
    });
    var captions = counters.textContent;
    need(captions.indexOf("loss") >= 0 && captions.indexOf("tok/s") >= 0, "counters: loss and tok/s named");
  }

  var flame = $("#flamegraph");
  if (flame) {
    need(!$("#search", flame) && flame.textContent.indexOf("Search") < 0, "flamegraph: dead Search control");
    need($$("text", flame).some(function (t) { return /^all \(/.test(t.textContent); }),
      "flamegraph: root frame unlabelled");
  }

  need($("a[href='trace.json']"), "no link to trace.json");
  need(document.body.textContent.indexOf("ui.perfetto.dev") >= 0, "no word on opening the trace in Perfetto");
  ["wall-coverage", "launch", "transfer", "efficiency", "mfu", "self-time", "percentiles", "gflops",
   "gbps", "intensity"].forEach(function (id) {
    need(document.getElementById("glossary-" + id), "glossary: no #glossary-" + id);
  });
  need(document.body.innerText.indexOf("NaN") < 0, "NaN on the page");

  // The bricks table: self time beside total, the name column sticky, and
  // a click on "Self ms" sorts largest first.
  var table = $("table.bricks");
  if (table) {
    var heads = $$("thead th", table);
    var self = heads.filter(function (h) { return h.textContent === "Self ms"; })[0];
    need(self, "bricks: no Self ms column");
    need(getComputedStyle($("tbody th.name", table)).position === "sticky", "bricks: name column not sticky");
    if (self) {
      self.click();
      var i = self.cellIndex;
      var values = $$("tbody tr", table).map(function (r) { return Number(r.cells[i].dataset.v); });
      var sorted = values.every(function (v, k) { return k === 0 || values[k - 1] >= v; });
      need(values.length >= 20 && sorted, "bricks: Self ms does not sort largest first");
      need(self.getAttribute("aria-sort") === "descending", "bricks: aria-sort not set");
    }
    var optional = $("td.opt", table);
    if (window.innerWidth <= 760) {
      need(optional && getComputedStyle(optional).display === "none", "bricks: secondary columns shown on a narrow screen");
    }
  }

  // Nothing but scroll containers may be wider than the window.
  if (document.documentElement.scrollWidth > window.innerWidth) {
    var wide = $$("body *").filter(function (e) {
      return e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest(".scroll");
    }).slice(0, 3).map(function (e) { return e.tagName.toLowerCase() + "." + e.className; });
    problems.push("page wider than the window: " + document.documentElement.scrollWidth + " > " +
      window.innerWidth + " (" + wide.join(", ") + ")");
  }
  $$("svg.chart").forEach(function (svg, i) {
    var box = svg.getBoundingClientRect(), parent = svg.parentElement.getBoundingClientRect();
    need(box.width <= parent.width + 1, "chart " + i + " (" + svg.getAttribute("aria-label") + ") wider than its box");
  });

  document.body.setAttribute("data-selfcheck", JSON.stringify({
    problems: problems,
    height: document.documentElement.scrollHeight
  }));
})();
