// The one number format of the dashboard: the user's locale. One Intl.NumberFormat, made once: a number's
// toLocaleString() builds a formatter on every call, which a list of fifty rows pays a hundred times on a phone.

const NUMBER = new Intl.NumberFormat();

/** 1234 as "1,234" (or "1.234", "1 234": the browser's language). */
export function formatNumber(n: number): string {
  return NUMBER.format(n);
}

const MONEY = new Map<string, Intl.NumberFormat>();

/**
 * An amount in a currency's minor units (cents for EUR, yen for JPY) as the browser's language writes money:
 * 4900 EUR as "€49.00". The currency's own number of fraction digits turns minor units into the amount.
 */
export function formatMoney(minor: number, currency: string): string {
  let format = MONEY.get(currency);
  if (!format) {
    try {
      format = new Intl.NumberFormat(undefined, { style: "currency", currency });
    } catch {
      // A code Intl does not know: the amount in minor units with the code, never a guessed decimal point.
      return `${formatNumber(minor)} ${currency}`;
    }
    MONEY.set(currency, format);
  }
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minor / 10 ** digits);
}

/** Revenue per currency, each currency apart (never summed across them), largest first. */
export function revenueEntries(revenue: Record<string, number> | undefined): [string, number][] {
  return Object.entries(revenue ?? {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}
