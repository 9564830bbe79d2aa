// How the canvas writes numbers: bandwidth with units, counts with separators, utilization in
// percent. No DOM: used by the views (bundle labels) and the inspector.

/**
 * A bandwidth in words: "800 Gb/s", "12.8 Tb/s"; "—" when unknown.
 * @param {number|string|null|undefined} gbps
 * @returns {string}
 */
export function formatBandwidth(gbps) {
  if (gbps === null || gbps === undefined || gbps === "") return "—";
  const n = Number(gbps);
  if (n >= 1000) return `${(n / 1000).toLocaleString("en-US", { maximumFractionDigits: 1 })} Tb/s`;
  return `${n} Gb/s`;
}

/**
 * A count with thousands separators ("1,024"); other values as text; "—" when unknown.
 * @param {unknown} value
 * @returns {string}
 */
export function formatCount(value) {
  if (value === null || value === undefined || value === "") return "—";
  return typeof value === "number" ? value.toLocaleString("en-US") : String(value);
}

/**
 * A utilization (0..1) in whole percent ("42 %"), or null when the element has none.
 * @param {number|undefined} utilization
 * @returns {string|null}
 */
export function formatUtilization(utilization) {
  return utilization !== undefined ? `${Math.round(utilization * 100)} %` : null;
}

/**
 * A port's name, as planner.domain.names.PortScheme.name writes it ("17", "3/2",
 * "tray 2 NIC 1"): the canvas's ports are 1-based, the scheme is a device's `port_scheme`
 * ({per_cage, tray_ports, planes}). The API names the ports it sends (`a_port_name`,
 * `peer_port_name`); this names the ports a user picks. Without a scheme: the number.
 * @param {{per_cage?: number, tray_ports?: number, planes?: number}|null|undefined} scheme
 * @param {number|string} port 1-based
 * @returns {string}
 */
export function portName(scheme, port) {
  const index = Number(port) - 1;
  if (!scheme || !Number.isInteger(index) || index < 0) return String(port);
  if (scheme.tray_ports) {
    const planes = Math.max(1, scheme.planes ?? 1);
    const within = index % scheme.tray_ports;
    const text = `tray ${Math.floor(index / scheme.tray_ports) + 1} NIC ${Math.floor(within / planes) + 1}`;
    return planes > 1 ? `${text} plane ${(within % planes) + 1}` : text;
  }
  const perCage = Math.max(1, scheme.per_cage ?? 1);
  if (perCage === 1) return String(index + 1);
  return `${Math.floor(index / perCage) + 1}/${(index % perCage) + 1}`;
}

/**
 * A device and one of its ports, as planner.domain.names.end_text writes them: "leaf-1 3/2",
 * "gpu00001 tray 2 NIC 1", and "leaf-1 port 17" for a bare number.
 * @param {string} device
 * @param {string|number|null|undefined} port the port's name
 * @returns {string}
 */
export function endText(device, port) {
  const name = port === null || port === undefined || port === "" ? "?" : String(port);
  return /^\d+$/.test(name) || name === "?" ? `${device} port ${name}` : `${device} ${name}`;
}
