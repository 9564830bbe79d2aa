// Catalog pages: small progressive enhancements. The pages work without them.

/**
 * Why a text is not valid JSON, or "" when it is (an empty box is valid: it means "none").
 * @param {string} text
 * @returns {string}
 */
export function jsonProblem(text) {
  if (!text.trim()) return "";
  try {
    JSON.parse(text);
    return "";
  } catch (error) {
    return error.message;
  }
}

/**
 * Check JSON text areas (`textarea[data-json]`) when they lose focus, before the server does.
 * @param {Document|HTMLElement} root
 */
export function checkJsonFields(root) {
  for (const area of root.querySelectorAll?.("textarea[data-json]") ?? []) {
    if (!(area instanceof HTMLTextAreaElement)) continue;
    const note = area.ownerDocument.createElement("p");
    note.className = "error";
    note.id = `${area.id}_json`;
    note.setAttribute("aria-live", "polite");
    note.hidden = true;
    area.after(note);
    area.addEventListener("change", () => {
      const problem = jsonProblem(area.value);
      note.hidden = !problem;
      note.textContent = problem ? `Not valid JSON: ${problem}` : "";
      const described = (area.getAttribute("aria-describedby") || "").split(" ").filter((id) => id && id !== note.id);
      if (problem) described.push(note.id);
      area.setAttribute("aria-describedby", described.join(" "));
    });
  }
}
