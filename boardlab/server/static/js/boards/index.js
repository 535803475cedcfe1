// Board kind → renderer (docs/web-app.md, "The renderer interface").

import * as grid from "./grid.js";

export const renderers = { square: grid, torus: grid };

// The track renderer is its own module; the grid games work even where it fails to load.
try {
  renderers.track = await import("./track.js");
} catch (error) {
  console.warn("boardlab: the track renderer could not be loaded", error);
}
