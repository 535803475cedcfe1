// The phone's tab bar (#phone-bar, shown on narrow screens): each tab opens one panel of
// the side panel (the actions, the moves, the chat) as a drawer over the foot of the page,
// so that resigning, taking back and chatting never need a scroll past the board. The
// same tab again, another tab or Escape closes it.

/** Wire the tab bar's buttons (`[data-panel]`: the id of the panel each opens). */
export function wireDrawer() {
  const tabs = [...document.querySelectorAll("#phone-bar [data-panel]")];
  const close = () => {
    delete document.body.dataset.drawer;
    for (const tab of tabs) {
      tab.setAttribute("aria-expanded", "false");
      document.getElementById(tab.dataset.panel)?.classList.remove("drawn");
    }
  };
  for (const tab of tabs) {
    tab.addEventListener("click", () => {
      const open = tab.getAttribute("aria-expanded") === "true";
      close();
      if (open) return;
      const panel = document.getElementById(tab.dataset.panel);
      if (!panel) return;
      document.body.dataset.drawer = tab.dataset.panel;
      tab.setAttribute("aria-expanded", "true");
      panel.classList.add("drawn");
    });
  }
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && document.body.dataset.drawer) close();
  });
}
