// The tab shows when it is your turn: the title starts with "● your turn" and the favicon
// turns from a grey dot to the accent colour (an SVG drawn here, no image files).

const ICON = (fill) => "data:image/svg+xml," + encodeURIComponent(
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="6.5" ` +
  `fill="${fill}" stroke="#23262b" stroke-width="1"/></svg>`);
const YOUR_TURN = "● your turn — ";

/** Show in the tab's title and icon whether it is `yourTurn` (`title`: the page's own). */
export function showTurn(title, yourTurn) {
  const text = (yourTurn ? YOUR_TURN : "") + title;
  if (document.title !== text) document.title = text;
  let link = document.querySelector('link[rel="icon"]');
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    document.head.append(link);
  }
  const href = ICON(yourTurn ? "#2f6f73" : "#c9c2b4");
  if (link.getAttribute("href") !== href) link.setAttribute("href", href);
}
