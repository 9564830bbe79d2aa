import assert from "node:assert/strict";
import { test } from "node:test";

import { catalogEntry, deviceNodeData, freeSpot, modelPosition, paletteDetail, paletteItemLabel } from "./palette_items.js";

const QM9700 = { slug: "QM9700", name: "NVIDIA Quantum-2 QM9700", port_count: 32, port_speed_gbps: 800, rack_units: 1, power_typical_w: 1100, power_max_w: 1720 };
const DGX = { slug: "DGX-H100", name: "NVIDIA DGX H100", compute_port_count: 8, port_count: 99, port_speed_gbps: 400, gpus: 8 };

test("a switch row counts its ports; a server row its compute ports", () => {
  assert.deepEqual(catalogEntry(QM9700, "switch"), {
    slug: "QM9700", name: "NVIDIA Quantum-2 QM9700", category: "switch", ports: 32, speed_gbps: 800,
    rack_units: 1, power_typical_w: 1100, power_max_w: 1720, gpus: null,
  });
  const server = catalogEntry(DGX, "server");
  assert.equal(server.ports, 8);
  assert.equal(server.gpus, 8);
  assert.equal(server.rack_units, null);
});

test("palette labels say the ports, or that they are unknown", () => {
  assert.equal(paletteDetail(catalogEntry(QM9700, "switch")), "32 × 800G");
  assert.equal(paletteDetail({ ports: 8, speed_gbps: null }), "8 × ?G");
  assert.equal(paletteDetail({ ports: null, speed_gbps: 400 }), "ports unknown");
  assert.equal(paletteItemLabel(catalogEntry(DGX, "server")), "Add DGX-H100 (NVIDIA DGX H100, 8 × 400G)");
});

test("a palette item becomes a device node with the next free name", () => {
  const leaf = deviceNodeData(catalogEntry(QM9700, "switch"), { switchRole: "spine", names: ["spine-1", "spine-3"], exists: () => false });
  assert.deepEqual(leaf, { id: "node:spine-4", name: "spine-4", label: "spine-4", kind: "device", role: "spine", model: "QM9700", ports: 32, speed_gbps: 800 });
  const taken = new Set(["node:server-1"]);
  const server = deviceNodeData({ slug: "X", category: "server", ports: null, speed_gbps: null }, { switchRole: "leaf", names: [], exists: (id) => taken.has(id) });
  assert.equal(server.role, "server");
  assert.equal(server.name, "server-1");
  assert.equal(server.id, "node:server-1~2");
  assert.equal(server.ports, 0);
});

test("a new device goes to the first free spot, right then down", () => {
  assert.deepEqual(freeSpot({ x: 0, y: 0 }, []), { x: 0, y: 0 });
  assert.deepEqual(freeSpot({ x: 0, y: 0 }, [{ x: 10, y: 10 }]), { x: 60, y: 0 });
  const row = Array.from({ length: 10 }, (_, i) => ({ x: i * 60, y: 0 }));
  assert.deepEqual(freeSpot({ x: 0, y: 0 }, row), { x: 0, y: 60 });
});

test("screen points map to model coordinates through pan and zoom", () => {
  assert.deepEqual(modelPosition({ x: 110, y: 60 }, { x: 10, y: 20 }, 2), { x: 50, y: 20 });
});
