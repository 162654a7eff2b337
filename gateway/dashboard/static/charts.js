// The chart component: every <figure data-chart> holding a <script type="application/json"> of
// {x: [ISO times], series: [{label, values}], yRange?} is drawn with uPlot, one line a series. The page
// keeps the same numbers in a table, so it reads without JavaScript. Each line has its own dash
// pattern and point shape besides its colour, and the legend names it, so no line is told by
// colour alone.
(function () {
  "use strict";
  var COLORS = ["#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#bf3989", "#0a7ea4", "#57606a"];
  var DASHES = [[], [8, 4], [2, 3], [10, 3, 2, 3], [4, 4], [12, 6], [1, 4], [6, 2, 2, 2]];
  var POINTS = [5, 7, 9, 6, 8, 10, 5, 7];

  function draw(figure) {
    var source = figure.querySelector("script[type='application/json']");
    var target = figure.querySelector(".chart-canvas");
    if (!source || !target || typeof uPlot === "undefined") return;
    var data = JSON.parse(source.textContent);
    var xs = data.x.map(function (t) { return Date.parse(t) / 1000; });
    var series = [{}];
    var columns = [xs];
    data.series.forEach(function (s, i) {
      var color = COLORS[i % COLORS.length];
      var shape = i % DASHES.length;
      series.push({ label: s.label, stroke: color, width: 2, dash: DASHES[shape], spanGaps: true,
                    points: { show: xs.length < 100, size: POINTS[shape], fill: i % 2 ? "#fff" : color } });
      columns.push(s.values);
    });
    var options = {
      width: Math.max(target.clientWidth, 280),
      height: 260,
      series: series,
      // `yRange` [min, max], optional: a fixed value axis (a share in %), else fitted to the values.
      scales: data.yRange ? { x: { time: true }, y: { range: data.yRange } } : { x: { time: true } },
      axes: [{}, { size: 50 }],
      legend: { live: true }
    };
    target.textContent = "";
    var plot = new uPlot(options, columns, target);
    figure.classList.add("chart-drawn");
    var resize = function () { plot.setSize({ width: Math.max(target.clientWidth, 280), height: 260 }); };
    if (typeof ResizeObserver !== "undefined") new ResizeObserver(resize).observe(target);
  }

  document.querySelectorAll("figure[data-chart]").forEach(draw);
})();
