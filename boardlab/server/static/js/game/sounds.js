// The game page's sounds, made with WebAudio (no audio files): a move, a capture or claim,
// your turn, low time and the game's end; with a mute switch (#sound) kept per browser in
// localStorage. `played` lists the sounds played so far (window.boardlab.sounds: tests).

const KEY = "boardlab.sound";
/** Each sound: notes of [frequency in Hz, seconds], played one after the other. */
const NOTES = {
  move: [[660, 0.07]],
  capture: [[523, 0.07], [784, 0.11]],
  turn: [[784, 0.08], [1047, 0.12]],
  low: [[440, 0.12], [440, 0.12]],
  end: [[523, 0.12], [659, 0.12], [784, 0.24]],
};

export const played = [];
let context = null;

/** Whether the sounds are off in this browser. */
export const muted = () => localStorage.getItem(KEY) === "off";

/** Play sound `name` (one of NOTES), unless muted. */
export function play(name) {
  if (muted() || !NOTES[name]) return;
  played.push(name);
  try {
    const Audio = window.AudioContext || window.webkitAudioContext;
    if (!Audio) return;
    context = context || new Audio();
    let at = context.currentTime + 0.01;
    for (const [frequency, seconds] of NOTES[name]) {
      const tone = context.createOscillator();
      const gain = context.createGain();
      tone.type = "sine";
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.18, at + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + seconds);
      tone.connect(gain).connect(context.destination);
      tone.start(at);
      tone.stop(at + seconds + 0.02);
      at += seconds;
    }
  } catch (error) {
    // no sound on this browser: the page plays on silently
  }
}

/** The mute switch: a button with aria-pressed (pressed: sound on). */
export function wireSoundSwitch(button) {
  const show = () => {
    const on = !muted();
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.textContent = on ? "♪ on" : "♪ off";
    button.title = on ? "sounds on: click to turn them off" : "sounds off: click to turn them on";
  };
  button.addEventListener("click", () => {
    localStorage.setItem(KEY, muted() ? "on" : "off");
    show();
  });
  show();
}

/** How many of a grid's cells hold a piece, and how many carry an owner's mark. */
function counts(view) {
  const block = (view && view.board) || {};
  const pieces = (block.cells || []).filter((c) => c !== null && c !== undefined).length;
  const owned = Object.entries(block.marks || {})
    .filter(([name]) => name.startsWith("owner:"))
    .reduce((sum, [, cells]) => sum + cells.length, 0);
  return { pieces, owned };
}

/**
 * The sounds of a new live position (`before`: the live position before it, or null on the
 * first one): the end, else your turn, else a capture or claim (pieces left the board, or
 * more are owned), else a move.
 */
export function soundsOf(before, after, mineNow, mineBefore) {
  if (!before) return;
  const moved = (after.view.history || []).length > (before.view.history || []).length;
  if (after.view.terminal && !before.view.terminal) {
    play("end");
    return;
  }
  if (mineNow && !mineBefore) {
    play("turn");
    return;
  }
  if (!moved) return;
  const [was, now] = [counts(before.view), counts(after.view)];
  play(now.pieces < was.pieces || now.owned > was.owned ? "capture" : "move");
}
