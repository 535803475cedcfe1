// The account in a page's header (#account): the signed-in name (a link to the profile) and
// "sign out", or a "sign in" link. Other modules import whoami/signIn/signUp/signOut.

import { api, el } from "./api.js";

/** `{signed_in, username, bot}` of this browser's session. */
export const whoami = () => api("/api/account");
export const signIn = (username, password) =>
  api("/api/account/login", { method: "POST", body: { username, password } });
export const signUp = (username, password) =>
  api("/api/account/signup", { method: "POST", body: { username, password } });
export const signOut = () => api("/api/account/logout", { method: "POST", body: {} });

/** The profile page of `name`. */
export const profileUrl = (name) => "/user/" + encodeURIComponent(name);

/** Fill `box` with the account's name and "sign out", or a "sign in" link. */
export async function showAccount(box) {
  let me = { signed_in: false };
  try {
    me = await whoami();
  } catch (error) {
    me = { signed_in: false };
  }
  if (!me.signed_in) {
    box.replaceChildren(el("a", { id: "sign-in-link", href: "/signin" }, "sign in"));
  } else {
    const out = el("button", { type: "button", id: "sign-out", onclick: async () => {
      await signOut();
      location.reload();
    } }, "sign out");
    const name = el("a", { id: "account-name", href: profileUrl(me.username) }, me.username);
    // replaceChildren writes a null as the text "null": leave the badge out instead
    box.replaceChildren(...(me.bot ? [name, el("span", { class: "bot-badge" }, "BOT"), out]
      : [name, out]));
  }
  box.dataset.signedIn = String(Boolean(me.signed_in));
  return me;
}

const box = document.getElementById("account");
if (box) showAccount(box);
