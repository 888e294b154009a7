// The range bar of both statistics pages: the named ranges, custom days and the time zone.
import { useId, useMemo, useState } from "react";
import "./stats.css";
import { validYmd } from "./days";
import { RANGES, browserZone, type Period } from "./period";

/** Zones most people pick, offered first; every zone the browser knows is one search away. */
const COMMON_ZONES = [
  "America/Los_Angeles",
  "America/Denver",
  "America/Chicago",
  "America/New_York",
  "America/Sao_Paulo",
  "Europe/London",
  "Europe/Paris",
  "Europe/Berlin",
  "Europe/Moscow",
  "Africa/Johannesburg",
  "Asia/Dubai",
  "Asia/Kolkata",
  "Asia/Singapore",
  "Asia/Shanghai",
  "Asia/Tokyo",
  "Australia/Sydney",
  "Pacific/Auckland",
];
const OTHER = "__other__";

/** "GMT+9", "GMT-5", "GMT" for a zone now, or "" when the browser does not know it. */
function offsetOf(zone: string): string {
  try {
    const parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "shortOffset" }).formatToParts(new Date());
    return parts.find((p) => p.type === "timeZoneName")?.value ?? "";
  } catch {
    return "";
  }
}

function allZones(): string[] {
  const intl = Intl as typeof Intl & { supportedValuesOf?: (key: "timeZone") => string[] };
  try {
    return intl.supportedValuesOf ? intl.supportedValuesOf("timeZone") : COMMON_ZONES;
  } catch {
    return COMMON_ZONES;
  }
}

function zoneText(zone: string, browser: string): string {
  const offset = offsetOf(zone);
  const name = zone === "UTC" ? "UTC" : zone.replace(/_/g, " ");
  return `${name}${offset && zone !== "UTC" ? ` (${offset})` : ""}${zone === browser ? " · this device" : ""}`;
}

/** A short list (UTC, this device's zone, the common ones); "Other…" opens a search over every zone. */
export function TimeZoneSelect({ value, onChange }: { value: string; onChange: (tz: string) => void }) {
  const browser = browserZone();
  const [searching, setSearching] = useState(false);
  const [text, setText] = useState("");
  const listId = useId();
  const zones = useMemo(() => allZones(), []);
  const short = useMemo(() => [...new Set(["UTC", browser, value, ...COMMON_ZONES])], [browser, value]);
  const pick = (zone: string) => {
    const found = zones.find((z) => z.toLowerCase() === zone.trim().toLowerCase()) ?? (zone.trim().toUpperCase() === "UTC" ? "UTC" : null);
    if (!found) return false;
    setSearching(false);
    setText("");
    onChange(found);
    return true;
  };
  return (
    <div className="tz-picker">
      <label htmlFor={`${listId}-select`}>Time zone</label>
      {searching ? (
        <input
          id={`${listId}-select`}
          type="search"
          list={listId}
          autoFocus
          placeholder="Search, e.g. Lisbon"
          value={text}
          data-testid="tz-search"
          onChange={(e) => {
            setText(e.target.value);
            pick(e.target.value);
          }}
          onKeyDown={(e) => {
            if (e.key === "Escape") setSearching(false);
            if (e.key === "Enter") pick(text);
          }}
          onBlur={() => !text && setSearching(false)}
        />
      ) : (
        <select
          id={`${listId}-select`}
          value={value}
          data-testid="tz-select"
          onChange={(e) => (e.target.value === OTHER ? setSearching(true) : onChange(e.target.value))}
        >
          {short.map((z) => (
            <option key={z} value={z}>
              {zoneText(z, browser)}
            </option>
          ))}
          <option value={OTHER}>Other time zone…</option>
        </select>
      )}
      <datalist id={listId}>{searching ? zones.map((z) => <option key={z} value={z} />) : null}</datalist>
    </div>
  );
}

/** The named ranges as chips, custom days (showing the answer's days for a named range) and the zone. */
export function RangeControls({ period, shown }: { period: Period; shown: { from: string; to: string } | null }) {
  const from = period.from ?? shown?.from ?? "";
  const to = period.to ?? shown?.to ?? "";
  return (
    <div className="card range-bar" data-testid="range-picker">
      <div className="presets" role="group" aria-label="Range: the last 24 hours, 7, 30 or 90 days, this or last month, 12 months or all time">
        {RANGES.map(([name, label, short]) => (
          <button
            key={name}
            type="button"
            title={label}
            className={`chip${period.range === name ? " chip-active" : ""}`}
            aria-pressed={period.range === name}
            data-testid={`preset-${name}`}
            onClick={() => period.setRange(name)}
          >
            {short}
          </button>
        ))}
      </div>
      <div className="range-row">
        <div className="range-inputs">
          <label htmlFor="stats-from">From</label>
          <input
            id="stats-from"
            data-testid="stats-from"
            type="date"
            value={from}
            max={to || undefined}
            onChange={(e) => validYmd(e.target.value) && period.setDays(e.target.value, to || e.target.value)}
          />
          <label htmlFor="stats-to">To</label>
          <input
            id="stats-to"
            data-testid="stats-to"
            type="date"
            value={to}
            min={from || undefined}
            onChange={(e) => validYmd(e.target.value) && period.setDays(from || e.target.value, e.target.value)}
          />
        </div>
        <TimeZoneSelect value={period.tz} onChange={period.setZone} />
      </div>
    </div>
  );
}
