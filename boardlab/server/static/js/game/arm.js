// A button that asks for a second click before it acts (resign): the first click arms it
// (its words change and it is marked `data-armed`), a second click on it while armed acts;
// it disarms by itself after a few seconds, or at a click anywhere else (lichess's way).

/** How long an armed button waits for its second click (ms). */
const ARMED_MS = 4000;

/**
 * Make `button` ask for a second click before `act()`.
 * @param {HTMLButtonElement} button
 * @param {() => void} act
 * @param {string} armedText  what the button says while armed
 */
export function armButton(button, act, armedText) {
  const plain = button.textContent;
  let timer = null;
  const disarm = () => {
    clearTimeout(timer);
    timer = null;
    delete button.dataset.armed;
    button.classList.remove("armed");
    button.textContent = plain;
    button.removeAttribute("aria-describedby");
  };
  button.addEventListener("click", (event) => {
    event.stopPropagation();
    if (button.dataset.armed) {
      disarm();
      act();
      return;
    }
    button.dataset.armed = "true";
    button.classList.add("armed");
    button.textContent = armedText;
    timer = setTimeout(disarm, ARMED_MS);
  });
  document.addEventListener("click", () => { if (button.dataset.armed) disarm(); });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && button.dataset.armed) disarm();
  });
  return disarm;
}
