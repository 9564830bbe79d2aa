// Making and changing links: draw mode (cytoscape-edgehandles: drag from one device to
// another) and the link dialog, which offers free ports and only the media the server says
// fit both ends (`/api/planner/link-options/`), or says why no link can be made. A 1:N
// breakout (an option with `legs` > 1) asks for the other legs' devices and ports and makes
// one link per leg through consecutive ports of the switch's cage (one assembly).

import { urls } from "./api.js";
import { budgetProblem } from "./budget.js";
import { freePorts, nodeName, orientLink, portChoices, tierProblem, usedPorts } from "./document.js";
import { h } from "./dom.js";
import { endText, portName } from "./format.js";
import {
  breakoutLinks,
  breakoutPorts,
  checkedOption,
  legProblem,
  linkData,
  optionLabel,
  optionsHeading,
  portsHeading,
  refusalReasons,
} from "./link_options.js";

/**
 * Link creation of a canvas.
 * @param {{doc: Document, root: HTMLElement, $: Function, api: Record<string, any>, state: Record<string, any>, cy: Record<string, any>,
 *   ur: Record<string, any>, container: HTMLElement, setStatus: Function, refuse: Function,
 *   countEditable: () => number, linkEdgeData: () => Record<string, any>[], newEdgeId: () => string}} canvas
 * @param {{modelInfo: (slug: string) => Promise<Record<string, any>|null>}} hooks
 * @returns {{openLinkDialog: Function, isOpen: () => boolean, setDrawMode: (on: boolean) => void,
 *   drawMode: () => boolean}}
 */
export function createLinkDialog(canvas, { modelInfo }) {
  const { doc, root, $, api, state, cy, ur, container, setStatus, refuse } = canvas;
  const dialog = $("link-dialog");
  let dialogContext = null;
  // The breakout legs: built here (the template has the dialog's fixed fields only).
  const legsBox = h(doc, "fieldset", { class: "link-legs", "data-c": "link-legs", hidden: true });
  dialog.querySelector(".link-media").after(legsBox);

  // --- draw mode ------------------------------------------------------------------------------
  const eh = cy.edgehandles({
    canConnect: (source, target) =>
      state.editable &&
      !source.same(target) &&
      source.data("kind") === "device" &&
      target.data("kind") === "device",
    edgeParams: () => ({ data: { kind: "pending" } }),
    hoverDelay: 100,
    snap: true,
    snapThreshold: 20,
    noEdgeEventsInDraw: true,
    disableBrowserGestures: true,
  });
  let drawMode = false;

  function setDrawMode(on) {
    drawMode = on && state.editable;
    if (drawMode) eh.enableDrawMode();
    else eh.disableDrawMode();
    if (!drawMode) cy.autoungrabify(!state.editable);
    $("draw").setAttribute("aria-pressed", drawMode ? "true" : "false");
    root.dataset.draw = drawMode ? "true" : "false";
    if (drawMode) setStatus("Draw links: drag from one device to another. Press L or Escape to stop.");
  }

  // A drawn edge is only a gesture: the dialog makes the link (or not).
  cy.on("ehcomplete", (event, source, target, added) => {
    added.remove();
    openLinkDialog({ source, target });
  });

  // --- media options --------------------------------------------------------------------------
  let optionsSequence = 0;
  async function queryLinkOptions() {
    const ctx = dialogContext;
    if (!ctx) return;
    const mine = ++optionsSequence;
    const status = $("link-media-status");
    const box = $("link-options");
    const refusal = $("link-refusal");
    $("link-ok").disabled = true;
    status.textContent = "Looking up compatible media…";
    box.replaceChildren();
    refusal.hidden = true;
    refusal.replaceChildren();
    const speed = Number($("link-speed").value) || null;
    const length = $("link-length").value;
    const answer = await api.get(urls.linkOptions({ a: ctx.a.data("model"), b: ctx.b.data("model"), speed_gbps: speed, length_m: length }));
    if (mine !== optionsSequence || dialogContext !== ctx) return;
    const data = answer.data ?? {};
    ctx.options = answer.ok ? data.options ?? [] : [];
    ctx.speed = data.speed_gbps ?? speed;
    if (!ctx.options.length) {
      status.textContent = "No compatible media: the link cannot be made.";
      for (const reason of refusalReasons(answer)) refusal.append(h(doc, "li", { text: reason }));
      refusal.hidden = false;
      return;
    }
    status.textContent = optionsHeading(ctx.options.length, ctx.speed);
    const checked = checkedOption(ctx.options, ctx.edge?.data());
    ctx.perCage = data.b_ports_per_cage ?? null;
    ctx.options.forEach((option, i) => {
      const input = h(doc, "input", { type: "radio", name: "link-media", value: String(i), checked: i === checked, onchange: renderLegs });
      const legs = option.legs > 1 ? ` · breakout 1:${option.legs}${option.leg_speed_gbps ? ` × ${option.leg_speed_gbps}G` : ""}` : "";
      box.append(h(doc, "label", { class: "option" }, input, ` ${optionLabel(option)}${legs}`));
    });
    $("link-ok").disabled = false;
    renderLegs();
  }

  // --- breakout legs --------------------------------------------------------------------------
  function pickedOption(ctx) {
    const picked = dialog.querySelector("input[name=link-media]:checked");
    return ctx?.options[Number(picked?.value ?? -1)] ?? null;
  }

  /** Free ports of a device for a leg (its stored port count, else its model's). */
  async function legPorts(node) {
    const ports = node.data("ports") || (await modelInfo(node.data("model")))?.ports || 0;
    return freePorts(ports, usedPorts(node.id(), canvas.linkEdgeData()));
  }

  function headText(ctx, option) {
    const head = breakoutPorts(Number($("link-b-port").value), option.legs, ctx.perCage, ctx.freeB);
    const where = head.ports.length ? ` ports ${head.ports.join(", ")}` : "";
    return { head, text: head.problem ?? `1:${option.legs} breakout from ${nodeName(ctx.b.data())}${where} (one cage, one cable); leg 1 is ${nodeName(ctx.a.data())} ${portText(ctx.a, $("link-a-port").value)}.` };
  }

  function renderLegs() {
    const ctx = dialogContext;
    const option = pickedOption(ctx);
    legsBox.replaceChildren();
    if (!ctx || ctx.edge || !option || !(option.legs > 1)) {
      legsBox.hidden = true;
      return;
    }
    const { text } = headText(ctx, option);
    legsBox.append(h(doc, "legend", { text: "Breakout legs" }), h(doc, "p", { class: "help", "data-c": "link-legs-head", text }));
    // Devices of the lower end's role (servers, or leaves of a leaf-spine breakout).
    const candidates = cy.nodes("[kind = 'device']").filter((n) => n.data("role") === ctx.a.data("role") && !n.same(ctx.b));
    for (let leg = 2; leg <= option.legs; leg++) {
      const device = h(doc, "select", { id: `link-leg-${leg}-device`, "data-c": `link-leg-${leg}-device` }, h(doc, "option", { value: "", text: "— device —" }));
      for (const node of candidates) device.append(h(doc, "option", { value: node.id(), text: nodeName(node.data()) }));
      const port = h(doc, "select", { id: `link-leg-${leg}-port`, "data-c": `link-leg-${leg}-port` });
      device.addEventListener("change", async () => {
        $("link-refusal").hidden = true; // a reason given for the legs as they were
        port.replaceChildren();
        const node = device.value ? cy.getElementById(device.value) : null;
        if (!node) return;
        for (const p of await legPorts(node)) port.append(h(doc, "option", { value: String(p), text: portText(node, p) }));
      });
      legsBox.append(
        h(
          doc,
          "div",
          { class: "form-grid" },
          h(doc, "div", {}, h(doc, "label", { for: device.id, text: `Leg ${leg} device` }), device),
          h(doc, "div", {}, h(doc, "label", { for: port.id, text: `Leg ${leg} port` }), port),
        ),
      );
    }
    legsBox.hidden = false;
  }
  $("link-b-port").addEventListener("change", renderLegs);
  $("link-a-port").addEventListener("change", renderLegs);

  /** The legs as picked, leg 1 first, and why they cannot be made (or null). */
  function pickedLegs(ctx, option) {
    const legs = [{ node: ctx.a.id(), port: Number($("link-a-port").value), role: ctx.a.data("role"), label: nodeName(ctx.a.data()) }];
    for (let leg = 2; leg <= option.legs; leg++) {
      const device = /** @type {HTMLSelectElement|null} */ (legsBox.querySelector(`[data-c=link-leg-${leg}-device]`));
      const id = device?.value ?? "";
      const node = id ? cy.getElementById(id) : null;
      const portSelect = /** @type {HTMLSelectElement|null} */ (legsBox.querySelector(`[data-c=link-leg-${leg}-port]`));
      const port = Number(portSelect?.value) || null;
      legs.push({ node: id, port, role: node?.data("role"), label: node ? nodeName(node.data()) : "" });
    }
    const { head } = headText(ctx, option);
    return { legs, head, problem: head.problem ?? legProblem(legs) };
  }

  /** A port of a device as every page names it ("3/2", "tray 2 NIC 1", "port 17"). */
  function portText(node, port) {
    const name = portName(node.data("port_scheme"), port);
    return /^\d+$/.test(name) ? `port ${name}` : name;
  }

  function fillPorts(select, ports, current, node) {
    select.replaceChildren();
    for (const port of ports) select.append(h(doc, "option", { value: String(port), text: portText(node, port) }));
    if (current && ports.includes(Number(current))) select.value = String(current);
  }

  let optionsTimer = null;
  // A changed speed or length makes the offered media stale at once: the link cannot be made
  // from them while the new ones are looked up.
  function scheduleOptions() {
    clearTimeout(optionsTimer);
    $("link-ok").disabled = true;
    $("link-media-status").textContent = "Looking up compatible media…";
    optionsTimer = setTimeout(queryLinkOptions, 300);
  }
  $("link-speed").addEventListener("input", scheduleOptions);
  $("link-length").addEventListener("input", scheduleOptions);

  // --- the dialog -----------------------------------------------------------------------------
  /**
   * Open the dialog for a new link between two devices, or to change an edge's media.
   * @param {{source?: Record<string, any>, target?: Record<string, any>, edge?: Record<string, any>}} what cytoscape elements
   */
  async function openLinkDialog({ source = null, target = null, edge = null }) {
    if (!state.editable) return;
    let a;
    let b;
    if (edge) {
      a = edge.source();
      b = edge.target();
    } else {
      const budget = budgetProblem(canvas.countEditable(), 1);
      if (budget) return refuse(budget);
      const ends = orientLink({ id: source.id(), role: source.data("role") }, { id: target.id(), role: target.data("role") });
      a = cy.getElementById(ends.a.id);
      b = cy.getElementById(ends.b.id);
    }
    const [aInfo, bInfo] = await Promise.all([modelInfo(a.data("model")), modelInfo(b.data("model"))]);
    const aData = { ...a.data(), ports: a.data("ports") || aInfo?.ports || 0, label: nodeName(a.data()) };
    const bData = { ...b.data(), ports: b.data("ports") || bInfo?.ports || 0, label: nodeName(b.data()) };
    const current = edge?.data() ?? {};
    const tiers = tierProblem({ id: a.id(), role: a.data("role") }, { id: b.id(), role: b.data("role") });
    const choice = portChoices(aData, bData, canvas.linkEdgeData(), edge ? { a_port: current.a_port, b_port: current.b_port } : {});
    dialogContext = { a, b, edge, options: [], freeB: choice.b, perCage: null };
    legsBox.replaceChildren();
    legsBox.hidden = true;
    $("link-title").textContent = edge ? `Link ${aData.label} ↔ ${bData.label}` : `New link: ${aData.label} ↔ ${bData.label}`;
    $("link-a-label").textContent = portsHeading(aData.label, choice.a.length, aData.ports);
    $("link-b-label").textContent = portsHeading(bData.label, choice.b.length, bData.ports);
    fillPorts($("link-a-port"), choice.a, current.a_port, a);
    fillPorts($("link-b-port"), choice.b, current.b_port, b);
    // Empty speed: the server picks the highest speed both ends run (and says which).
    $("link-speed").value = current.speed_gbps ?? "";
    $("link-speed").placeholder = "auto";
    $("link-length").value = current.length_m ?? 3;
    $("link-ok").textContent = edge ? "Change link" : "Create link";
    $("link-ok").disabled = true;
    $("link-options").replaceChildren();
    const refusal = $("link-refusal");
    refusal.replaceChildren();
    refusal.hidden = true;
    if (tiers || choice.problem) {
      $("link-media-status").textContent = "The link cannot be made.";
      refusal.append(h(doc, "li", { text: tiers || choice.problem }));
      refusal.hidden = false;
    } else {
      queryLinkOptions();
    }
    dialog.returnValue = "";
    dialog.showModal();
  }

  // The link is made on submit, before the dialog closes (its close event comes later).
  $("link-form").addEventListener("submit", (event) => {
    if (event.submitter?.value !== "ok" || !dialogContext) return;
    const ctx = dialogContext;
    const option = pickedOption(ctx);
    if (!ctx.edge && option?.legs > 1) {
      const { problem } = pickedLegs(ctx, option);
      if (problem) {
        event.preventDefault(); // the dialog stays open with the reason
        const refusal = $("link-refusal");
        refusal.replaceChildren(h(doc, "li", { text: problem }));
        refusal.hidden = false;
        return;
      }
    }
    dialogContext = null;
    commitLink(ctx);
  });
  dialog.addEventListener("close", () => {
    const ctx = dialogContext;
    dialogContext = null;
    clearTimeout(optionsTimer);
    if (ctx && !ctx.edge) setStatus("No link was made.");
  });

  function commitLink(ctx) {
    const picked = dialog.querySelector("input[name=link-media]:checked");
    const option = ctx.options[Number(picked?.value ?? -1)];
    if (!option) return;
    const data = linkData(option, {
      aPort: $("link-a-port").value,
      bPort: $("link-b-port").value,
      speed: $("link-speed").value,
      length: $("link-length").value,
      offeredSpeed: ctx.speed,
      aRole: ctx.a.data("role"),
      bRole: ctx.b.data("role"),
    });
    if (!ctx.edge && option.legs > 1) return commitBreakout(ctx, option);
    data.a_port_name = portName(ctx.a.data("port_scheme"), data.a_port);
    data.b_port_name = portName(ctx.b.data("port_scheme"), data.b_port);
    if (ctx.edge) {
      ur.do("changeData", { id: ctx.edge.id(), data });
      setStatus(`Changed the link ${nodeName(ctx.a.data())} ↔ ${nodeName(ctx.b.data())}.`, "ok");
    } else {
      const added = ur.do("add", { group: "edges", data: { id: canvas.newEdgeId(), source: ctx.a.id(), target: ctx.b.id(), ...data } });
      cy.$(":selected").unselect();
      added.select();
      setStatus(`Linked ${endText(nodeName(ctx.a.data()), data.a_port_name)} to ${endText(nodeName(ctx.b.data()), data.b_port_name)} (${option.kind ?? "media"}).`, "ok");
    }
    container.focus();
  }

  function commitBreakout(ctx, option) {
    const { legs, head } = pickedLegs(ctx, option);
    const links = breakoutLinks(option, legs, head.ports, {
      speed: $("link-speed").value,
      length: $("link-length").value,
      offeredSpeed: ctx.speed,
      bRole: ctx.b.data("role"),
    });
    // One undo step for the whole assembly.
    const added = ur.do(
      "add",
      links.map(({ source, data }) => {
        const named = { a_port_name: portName(cy.getElementById(source).data("port_scheme"), data.a_port), b_port_name: portName(ctx.b.data("port_scheme"), data.b_port) };
        return { group: "edges", data: { id: canvas.newEdgeId(), source, target: ctx.b.id(), ...data, ...named } };
      }),
    );
    cy.$(":selected").unselect();
    added.select();
    const ends = legs.map((leg) => `${leg.label} ${portText(cy.getElementById(leg.node), leg.port)}`).join(", ");
    setStatus(`Breakout 1:${option.legs} (${option.cable}) from ${nodeName(ctx.b.data())} ports ${head.ports.join(", ")} to ${ends}.`, "ok");
    container.focus();
  }

  return { openLinkDialog, isOpen: () => dialog.open, setDrawMode, drawMode: () => drawMode };
}
