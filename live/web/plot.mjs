// Time-series plots on <canvas>: a ring buffer of samples per plot and a redraw that costs the
// same whatever the message rate (at most two points per pixel column).

// Samples of several series over a fixed time window; push() at any rate.
export class History {
  constructor(seriesCount, capacity) {
    this.capacity = capacity;
    this.times = new Float64Array(capacity);  // seconds
    this.values = Array.from({ length: seriesCount }, () => new Float32Array(capacity));
    this.next = 0;
    this.size = 0;
  }

  push(time, values) {
    this.times[this.next] = time;
    for (let s = 0; s < this.values.length; ++s) this.values[s][this.next] = values[s];
    this.next = (this.next + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
  }

  // Index of the i-th oldest sample.
  at(i) {
    return (this.next - this.size + i + this.capacity) % this.capacity;
  }
}

const COLORS = ["#4fc3f7", "#ffb74d", "#81c784", "#e57373", "#ba68c8", "#fff176"];
export const colorOf = (i) => COLORS[i % COLORS.length];

// Draws `lines` ({series, color, dashed}) of `history` over the last `windowS` seconds ending at
// `now`. `range` [min, max] fixes the y axis; otherwise it fits the data.
export function drawPlot(canvas, history, lines, { now, windowS, range }) {
  const ratio = window.devicePixelRatio || 1;
  const width = Math.round(canvas.clientWidth * ratio), height = Math.round(canvas.clientHeight * ratio);
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const g = canvas.getContext("2d");
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  const w = canvas.clientWidth, h = canvas.clientHeight;
  const left = 44, right = 8, top = 8, bottom = 18;
  g.fillStyle = "#11161c";
  g.fillRect(0, 0, w, h);
  if (history.size === 0 || lines.length === 0) return;

  const first = (() => {  // oldest sample inside the window
    let lo = 0, hi = history.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (history.times[history.at(mid)] < now - windowS) lo = mid + 1; else hi = mid;
    }
    return lo;
  })();
  let [min, max] = range ?? [Infinity, -Infinity];
  if (!range) {
    for (const line of lines) {
      const v = history.values[line.series];
      for (let i = first; i < history.size; ++i) {
        const y = v[history.at(i)];
        if (y < min) min = y;
        if (y > max) max = y;
      }
    }
    if (!(max > min)) { min -= 0.5; max += 0.5; }
    const pad = (max - min) * 0.08;
    min -= pad;
    max += pad;
  }
  const x = (t) => left + (w - left - right) * (1 - (now - t) / windowS);
  const y = (v) => top + (h - top - bottom) * (1 - (v - min) / (max - min));

  // Grid: 5 horizontal lines with values, a vertical line every 2 s.
  g.strokeStyle = "#27313b";
  g.fillStyle = "#8796a5";
  g.font = "11px system-ui, sans-serif";
  g.lineWidth = 1;
  g.setLineDash([]);
  for (let k = 0; k <= 4; ++k) {
    const v = min + (max - min) * k / 4, py = Math.round(y(v)) + 0.5;
    g.beginPath(); g.moveTo(left, py); g.lineTo(w - right, py); g.stroke();
    g.fillText(v.toFixed(Math.abs(max - min) < 1 ? 3 : 2), 2, py + 4);
  }
  for (let s = 0; s <= windowS; s += 2) {
    const px = Math.round(x(now - s)) + 0.5;
    g.beginPath(); g.moveTo(px, top); g.lineTo(px, h - bottom); g.stroke();
    g.textAlign = s === 0 ? "right" : "center";
    g.fillText(s === 0 ? "now" : `-${s} s`, px, h - 4);
    g.textAlign = "left";
  }

  // Lines, at most ~2 points per pixel column.
  const step = Math.max(1, Math.floor((history.size - first) / (2 * (w - left - right))));
  g.lineWidth = 1.5;
  for (const line of lines) {
    const v = history.values[line.series];
    g.strokeStyle = line.color;
    g.setLineDash(line.dashed ? [5, 4] : []);
    g.beginPath();
    for (let i = first; i < history.size; i += step) {
      const j = history.at(i);
      const px = x(history.times[j]), py = y(v[j]);
      if (i === first) g.moveTo(px, py); else g.lineTo(px, py);
    }
    g.stroke();
  }
  g.setLineDash([]);
}
