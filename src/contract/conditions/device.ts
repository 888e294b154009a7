// `device`: the visitor's agent is one of the device classes (ios and android from the agent's platform).
import { TARGETING_MESSAGES as M } from "../form-rules.js";
import { DEVICES } from "../tables.js";
import { defineKind, conditionList, orWords, uniqueValues } from "./kind.js";

export type RuleDevice = (typeof DEVICES)[number];

export const DEVICE_LABELS: Record<RuleDevice, string> = { ios: "iOS", android: "Android", mobile: "Mobile", tablet: "Tablet", desktop: "Desktop", bot: "Bot" };

export const deviceCondition = defineKind({
  kind: "device",
  label: "Device",
  schema: (t) => t.Array(t.Unsafe<RuleDevice>({ type: "string", maxLength: 300, description: DEVICES.join(", ") }), { maxItems: 500 }),
  normalise: (raw, fail) =>
    uniqueValues(
      conditionList(raw, fail, DEVICES.length).map((d) => {
        if (!(DEVICES as readonly string[]).includes(d)) fail(M.device);
        return d;
      }),
    ) as RuleDevice[],
  compile: (devices) => {
    const set = new Set<string>(devices);
    return (a) => {
      const platform = a.platform();
      return (platform !== null && set.has(platform)) || set.has(a.device());
    };
  },
  cost: 2,
  words: (devices) => `device ${orWords(devices)}`,
  field: { input: "choices", options: DEVICES.map((d) => ({ value: d, label: DEVICE_LABELS[d] })), groupLabel: "Devices", empty: "Tick at least one device" },
});
