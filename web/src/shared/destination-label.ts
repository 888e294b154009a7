// The destination codes clicks record (default, rule:N, ios, android, variant:N), and link health's fallback, as the
// dashboard names them: "Rule 2", "Variant B"; the link form, the statistics and the link's health say the same.

export function destinationLabel(code: string): string {
  if (code === "default") return "Default";
  if (code === "ios") return "iOS";
  if (code === "android") return "Android";
  if (code === "fallback") return "Fallback";
  const rule = /^rule:(\d+)$/.exec(code);
  if (rule) return `Rule ${rule[1]}`;
  const variant = /^variant:([1-9])$/.exec(code);
  if (variant) return `Variant ${String.fromCharCode(64 + Number(variant[1]))}`;
  return code;
}
