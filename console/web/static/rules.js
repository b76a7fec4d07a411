// /rules: the rules as the console plays them, in the phone's language (the same catalogues and
// switch as the phone's page).
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  I18n.start(document.getElementById("lang"), () => {}).then(() => { document.body.dataset.lang = I18n.lang; });
});
