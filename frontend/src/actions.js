// Small page actions declared in the markup, so that pages need no inline script (the
// Content-Security-Policy allows scripts from this site only):
//   <form data-confirm="Delete it?">  asks before submitting;
//   <button data-print>               prints the page.

export function startActions(root) {
  root.addEventListener("submit", (event) => {
    const form = event.target.closest ? event.target.closest("form[data-confirm]") : null;
    if (form && !window.confirm(form.dataset.confirm)) event.preventDefault();
  });
  root.addEventListener("click", (event) => {
    const button = event.target.closest ? event.target.closest("[data-print]") : null;
    if (button) window.print();
  });
}
