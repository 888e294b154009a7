// src/contract/broker-kinds.ts, the broker kinds' registry: the contract's union, the settings parser, the
// URL checks and docs/stream.md's table all follow it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BROKER_KINDS, BROKER_KIND_NAMES } from "../../src/contract/broker-kinds.js";
import { StreamKindSchema } from "../../src/contract/streams.js";
import { streamConfigOf } from "../../src/config-stream.js";
import { parseBrokerUrl } from "../../src/streams/stream-urls.js";

/** docs/stream.md's table of kinds, row by row. */
function docsRows(): string[] {
  const doc = readFileSync(new URL("../../docs/stream.md", import.meta.url), "utf8");
  const start = doc.indexOf("| kind | setting | where the events go | library |");
  return doc.slice(start, doc.indexOf("\n\n", start)).split("\n").slice(2);
}

describe("the broker kinds' registry", () => {
  it("names the five kinds, in order, each with its setting and schemes", () => {
    expect(BROKER_KIND_NAMES).toEqual(["amqp", "redis", "nats", "mqtt", "clickhouse"]);
    expect(BROKER_KINDS.map((k) => [k.setting, Object.entries(k.schemes)])).toEqual([
      [
        "STREAM_AMQP_URL",
        [
          ["amqp:", 5672],
          ["amqps:", 5671],
        ],
      ],
      [
        "STREAM_REDIS_URL",
        [
          ["redis:", 6379],
          ["rediss:", 6379],
        ],
      ],
      [
        "STREAM_NATS_URL",
        [
          ["nats:", 4222],
          ["tls:", 4222],
        ],
      ],
      [
        "STREAM_MQTT_URL",
        [
          ["mqtt:", 1883],
          ["mqtts:", 8883],
        ],
      ],
      [
        "STREAM_CLICKHOUSE_URL",
        [
          ["http:", 8123],
          ["https:", 8443],
        ],
      ],
    ]);
  });

  it("is the contract's union of kinds", () => {
    const literals = (StreamKindSchema as unknown as { anyOf: { const: string }[] }).anyOf.map((l) => l.const);
    expect(literals).toEqual([...BROKER_KIND_NAMES]);
  });

  it("is what the settings parser reads: each kind's setting, its schemes taken, another refused", () => {
    for (const k of BROKER_KINDS) {
      const scheme = Object.keys(k.schemes)[0] as string;
      const url = `${scheme}//broker.example:1`;
      const config = streamConfigOf({ [k.setting]: url });
      expect(BROKER_KIND_NAMES.map((n) => config[n])).toEqual(BROKER_KIND_NAMES.map((n) => (n === k.kind ? url : null)));
      const other = BROKER_KINDS.find((o) => o.kind !== k.kind) as (typeof BROKER_KINDS)[number];
      expect(() => streamConfigOf({ [k.setting]: `${Object.keys(other.schemes)[0]}//broker.example/` })).toThrow(k.setting);
    }
  });

  it("is what an account's URL is checked against: every scheme of its kind, none of another", () => {
    for (const k of BROKER_KINDS) {
      for (const scheme of Object.keys(k.schemes)) expect(parseBrokerUrl(`${scheme}//broker.example`, k.kind).protocol).toBe(scheme);
      const other = BROKER_KINDS.find((o) => o.kind !== k.kind) as (typeof BROKER_KINDS)[number];
      expect(() => parseBrokerUrl(`${Object.keys(other.schemes)[0]}//broker.example`, k.kind)).toThrow(`for ${k.kind}`);
    }
  });

  it("is docs/stream.md's table, row for row", () => {
    const expected = BROKER_KINDS.map((k) => {
      const schemes = Object.keys(k.schemes)
        .map((s) => `\`${s}//\``)
        .join(" or ");
      return `| \`${k.kind}\`: ${k.label} | \`${k.setting}\` (${schemes}) | ${k.publishes} | ${k.library} |`;
    });
    expect(docsRows()).toEqual(expected);
  });
});
