// The colour theme: light, dark or the system's (prefers-color-scheme), chosen in the header and remembered.
import { useEffect, useState } from "react";

export type Theme = "light" | "dark" | "system";
/** The same key and attribute as public/theme-boot.js, which applies the choice before the first paint. */
const KEY = "snip-theme";

export function storedTheme(): Theme {
  try {
    const t = localStorage.getItem(KEY);
    return t === "light" || t === "dark" ? t : "system";
  } catch {
    return "system";
  }
}

export function applyTheme(theme: Theme): void {
  if (theme === "system") document.documentElement.removeAttribute("data-theme");
  else document.documentElement.setAttribute("data-theme", theme);
  try {
    if (theme === "system") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, theme);
  } catch {
    // Not remembered (storage refused); applied for this page all the same.
  }
}

/** The theme shown now: the chosen one, else the system's. */
export function isDarkTheme(): boolean {
  const chosen = document.documentElement.getAttribute("data-theme");
  return chosen ? chosen === "dark" : window.matchMedia("(prefers-color-scheme: dark)").matches;
}

/** Light for dark and dark for light (the command palette's action); the page's theme switches follow. */
export function toggleTheme(): void {
  applyTheme(isDarkTheme() ? "light" : "dark");
  // The switches read the stored choice again on the event another tab's choice sends.
  window.dispatchEvent(new StorageEvent("storage", { key: KEY }));
}

const CHOICES: Array<{ value: Theme; label: string; icon: string }> = [
  {
    value: "light",
    label: "Light theme",
    icon: "M12 4V2m0 20v-2m8-8h2M2 12h2m13.66-5.66 1.41-1.41M4.93 19.07l1.41-1.41m0-11.32L4.93 4.93m14.14 14.14-1.41-1.41M12 17a5 5 0 1 0 0-10 5 5 0 0 0 0 10z",
  },
  { value: "dark", label: "Dark theme", icon: "M21 12.79A9 9 0 1 1 11.21 3 7 7 0 0 0 21 12.79z" },
  { value: "system", label: "Theme of the system", icon: "M4 5h16v11H4zM9 20h6M12 16v4" },
];

/** Three small buttons (light, dark, system); the pressed one is the theme in force. */
export function ThemeSwitch() {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  useEffect(() => applyTheme(theme), [theme]);
  // Another tab's choice applies here too.
  useEffect(() => {
    const onStorage = (e: StorageEvent) => e.key === KEY && setTheme(storedTheme());
    window.addEventListener("storage", onStorage);
    return () => window.removeEventListener("storage", onStorage);
  }, []);
  return (
    <div className="theme-switch" role="group" aria-label="Theme" data-testid="theme-switch">
      {CHOICES.map((c) => (
        <button
          key={c.value}
          type="button"
          className="theme-choice"
          aria-pressed={theme === c.value}
          aria-label={c.label}
          title={c.label}
          data-testid={`theme-${c.value}`}
          onClick={() => setTheme(c.value)}
        >
          <svg
            viewBox="0 0 24 24"
            width="16"
            height="16"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
            strokeLinecap="round"
            strokeLinejoin="round"
            aria-hidden="true"
          >
            <path d={c.icon} />
          </svg>
        </button>
      ))}
    </div>
  );
}
