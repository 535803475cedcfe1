// The rating history chart of a profile: one SVG line per pool, the rating after each rated
// game (oldest first, as GET /api/users/NAME's "history" gives it). Built with DOM calls
// only (no markup strings): a pool's name goes in as text.

const NS = "http://www.w3.org/2000/svg";
const WIDTH = 600, HEIGHT = 200, PAD = 30;
const COLOURS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2"];

function svg(tag, attributes, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}

// The chart of {POOL: [{at, rating}]}; null when there is nothing to draw.
export function ratingChart(history) {
  const pools = Object.entries(history).filter(([, points]) => points.length > 0);
  if (pools.length === 0) return null;
  const ratings = pools.flatMap(([, points]) => points.map((point) => point.rating));
  const low = Math.min(...ratings) - 20, high = Math.max(...ratings) + 20;
  const longest = Math.max(...pools.map(([, points]) => points.length));
  const x = (index) => PAD + (longest === 1 ? 0 : index * (WIDTH - 2 * PAD) / (longest - 1));
  const y = (rating) => HEIGHT - PAD - (rating - low) * (HEIGHT - 2 * PAD) / (high - low);
  const chart = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", class: "rating-chart",
    "aria-label": "rating history" });
  chart.append(svg("text", { x: 2, y: PAD, "font-size": 11 }, String(Math.round(high))),
    svg("text", { x: 2, y: HEIGHT - PAD, "font-size": 11 }, String(Math.round(low))));
  pools.forEach(([pool, points], index) => {
    const colour = COLOURS[index % COLOURS.length];
    const line = points.map((point, at) => `${x(at).toFixed(1)},${y(point.rating).toFixed(1)}`).join(" ");
    chart.append(svg("polyline", { points: line, fill: "none", stroke: colour, "stroke-width": 2,
      "data-pool": pool }));
    chart.append(svg("text", { x: PAD + index * 120, y: HEIGHT - 6, fill: colour, "font-size": 12 }, pool));
  });
  return chart;
}
