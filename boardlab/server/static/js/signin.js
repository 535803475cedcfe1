// The sign-in page (/signin): sign in or sign up, then back to the lobby (or to ?next=PATH
// on this site).

import { showAccount, signIn, signUp } from "./account.js";

const $ = (id) => document.getElementById(id);

function next() {
  const target = new URLSearchParams(location.search).get("next") || "/";
  return target.startsWith("/") && !target.startsWith("//") ? target : "/";
}

async function submit(action) {
  const form = $("account-form");
  if (!form.reportValidity()) return;
  $("account-error").hidden = true;
  try {
    await action($("username").value, $("password").value);
    location.assign(next());
  } catch (error) {
    $("account-error").textContent = error.message;
    $("account-error").hidden = false;
  }
}

$("account-form").addEventListener("submit", (event) => {
  event.preventDefault();
  submit(signIn);
});
$("sign-up").addEventListener("click", () => submit(signUp));
showAccount($("account"));
