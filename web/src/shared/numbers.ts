// The one number format of the dashboard: the user's locale. One Intl.NumberFormat, made once: a number's
// toLocaleString() builds a formatter on every call, which a list of fifty rows pays a hundred times on a phone.

const NUMBER = new Intl.NumberFormat();

/** 1234 as "1,234" (or "1.234", "1 234": the browser's language). */
export function formatNumber(n: number): string {
  return NUMBER.format(n);
}
