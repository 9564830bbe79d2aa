// The theme's globals (base_url, shortcuts) from this script tag's data attributes, so the
// pages need no inline script under the app's Content-Security-Policy (docs/theme/main.html).
/* eslint-disable no-var */
var base_url = document.currentScript.dataset.baseUrl;
var shortcuts = JSON.parse(document.currentScript.dataset.shortcuts);
