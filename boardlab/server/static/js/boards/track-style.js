// The track renderer's stylesheet (track.js), added to the page once, when the first track
// board is made: the track's cells, tokens and hints, and the table of hands and cards.

const STYLE_ID = "boardlab-track-style";

const CSS = `
.track-board { font: 14px/1.35 system-ui, sans-serif; color: #2d2a26; }
.track-board svg.track { display: block; width: 100%; height: auto; margin: 0 auto; }
.track-board .track-path { fill: none; stroke: #d6cdb8; stroke-width: 8; stroke-linecap: round;
  stroke-linejoin: round; }
.track-board .cell > rect { fill: #fbf7ee; stroke: #b9ad94; stroke-width: 1.5; }
.track-board .cell.end > rect { fill: #efe6d2; }
.track-board .cell.pickable > rect { stroke: #2f7a6b; stroke-width: 3; cursor: pointer; }
.track-board .cell.selected > rect { fill: #dcefe9; }
.track-board .cell-name { font-size: 10px; fill: #8a7f6a; }
.track-board .cell-label { font-size: 12px; font-weight: 600; fill: #6b5d43; }
.track-board .glyph { font-size: 24px; font-family: "DejaVu Sans", system-ui, sans-serif; }
.track-board .code { font-size: 9px; fill: #8a7f6a; }
.track-board .token { stroke: #2d2a26; stroke-width: 1; }
.track-board .token-count { font-size: 10.5px; font-weight: 700; pointer-events: none; }
.track-board g.tokens.pickable { cursor: pointer; }
.track-board g.tokens.pickable .token { stroke: #10463c; stroke-width: 2.5; }
.track-board g.tokens.pickable .halo { fill: none; stroke: #2f7a6b; stroke-width: 2;
  stroke-dasharray: 3 2; }
.track-board g.tokens.selected .halo { fill: #f2d45c; fill-opacity: .55; stroke: #8a6d00;
  stroke-dasharray: none; stroke-width: 2.5; }
.track-board .hint rect { fill: #f2d45c; stroke: #8a6d00; stroke-width: 1; }
.track-board .hint text { font-size: 9px; font-weight: 700; fill: #3d3000; }
.track-board [data-pick-kind]:focus-visible { outline: 3px solid #2f7a6b; outline-offset: 2px; }
.track-board .table { display: flex; flex-wrap: wrap; gap: .6rem 1.4rem; margin-top: .6rem;
  align-items: flex-start; }
.track-board .table section { min-width: 9rem; }
.track-board .table h4 { margin: 0 0 .25rem; font-size: .8rem; font-weight: 600;
  color: #6b5d43; text-transform: uppercase; letter-spacing: .04em; }
.track-board .cards { display: flex; flex-wrap: wrap; gap: .35rem; }
.track-board .card { position: relative; display: inline-flex; flex-direction: column;
  align-items: center; justify-content: center; width: 2.9rem; height: 3.9rem;
  border: 1.5px solid #b9ad94; border-radius: .4rem; background: #fffdf8; padding: 0;
  font: inherit; color: inherit; }
.track-board .card.small { width: 2.1rem; height: 2.8rem; }
.track-board .card .card-glyph { font-size: 1.5rem; line-height: 1;
  font-family: "DejaVu Sans", system-ui, sans-serif; }
.track-board .card.small .card-glyph { font-size: 1.1rem; }
.track-board .card .card-code { font-size: .7rem; color: #675d4a; }
.track-board .card .card-count { position: absolute; top: -.45rem; right: -.45rem;
  min-width: 1.1rem; height: 1.1rem; border-radius: .55rem; background: #4a4338; color: #fff;
  font-size: .7rem; font-weight: 700; line-height: 1.1rem; text-align: center; padding: 0 .2rem; }
.track-board button.card { cursor: default; }
.track-board rect.last-to, .track-board rect.last-from { fill: none; stroke: #e0452b; stroke-width: 3.5;
  pointer-events: none; }
.track-board rect.last-from { stroke-dasharray: 6 4; stroke-width: 2.5; }
.track-board button.card.pickable { cursor: pointer; border-color: #2f7a6b; border-width: 2.5px;
  box-shadow: 0 0 0 2px #cfe7e0; }
.track-board button.card.selected { background: #f7e7a8; border-color: #8a6d00;
  transform: translateY(-.3rem); }
.track-board .seats { list-style: none; margin: 0; padding: 0; }
.track-board .seats li { display: flex; align-items: center; gap: .4rem; margin: 0;
  line-height: 1.35; }
.track-board .seats li.acting { font-weight: 700; }
.track-board .seats li.acting::after { content: "◀ to play"; font-size: .75rem;
  font-weight: 400; color: #2f7a6b; }
.track-board .seat-shape { width: 1.05rem; height: 1.05rem; flex: none; }
.track-board .muted { color: #5f5645; }
.track-board .turn.discarding { color: #a23b2c; font-weight: 600; }
.track-board .legend { display: flex; flex-wrap: wrap; gap: .2rem .9rem; margin: .5rem 0 0;
  padding: 0; list-style: none; font-size: .85rem; color: #5a5040; }
.track-board .legend .card-glyph { font-size: 1.1rem; margin-right: .2rem;
  font-family: "DejaVu Sans", system-ui, sans-serif; }
`;

/** Add the track stylesheet to the document (once). */
export function injectTrackStyle() {
  if (document.getElementById(STYLE_ID)) return;
  const style = document.createElement("style");
  style.id = STYLE_ID;
  style.textContent = CSS;
  document.head.appendChild(style);
}

