// The DNS proof of a custom domain: its CNAME must point at CNAME_TARGET and its TXT record must hold
// the domain's token. Asked through DNS_SERVERS with node:dns, every lookup bounded in time.
import { Resolver } from "node:dns/promises";

/** What the check needs from DNS (node:dns in production; the interface is where resolvers swap). */
export interface DnsLookup {
  resolveCname(name: string): Promise<string[]>;
  resolveTxt(name: string): Promise<string[][]>;
  /** Abandons every query still running (their promises reject). */
  cancel(): void;
}

/** Per try and tries per server: node's defaults (5 s, 4 tries) could hold a verify request for 20 s and more. */
export const DNS_TRY_MS = 1_500;
export const DNS_TRIES = 2;
/** The whole check (both records, in parallel) never takes longer than this. */
export const DNS_DEADLINE_MS = 4_000;

export function nodeDnsLookup(servers: readonly string[]): () => DnsLookup {
  return () => {
    const r = new Resolver({ timeout: DNS_TRY_MS, tries: DNS_TRIES });
    if (servers.length > 0) r.setServers([...servers]);
    return r;
  };
}

export type RecordState = { state: "ok" } | { state: "missing" } | { state: "wrong"; found: string } | { state: "no_answer"; reason: string };

export interface DnsCheck {
  cname: RecordState;
  txt: RecordState;
}

export interface ExpectedRecords {
  hostname: string;
  cnameTarget: string;
  txtName: string;
  txtValue: string;
}

/** The TXT record sits at a name of its own under the hostname: a CNAME allows no other record beside it. */
export const TXT_LABEL = "_snip-verify";
const TXT_PREFIX = "snip-verify=";

export function expectedRecords(d: { hostname: string; txt_token: string }, cnameTarget: string): ExpectedRecords {
  return { hostname: d.hostname, cnameTarget, txtName: `${TXT_LABEL}.${d.hostname}`, txtValue: `${TXT_PREFIX}${d.txt_token}` };
}

/** Record absent: the name has no such record (ENODATA) or does not exist at all (ENOTFOUND, NXDOMAIN). */
const ABSENT = new Set(["ENODATA", "ENOTFOUND"]);

function failure(err: unknown): RecordState {
  const code = (err as { code?: string }).code ?? "";
  if (ABSENT.has(code)) return { state: "missing" };
  const reason =
    code === "ECANCELLED" || code === "ETIMEOUT"
      ? "no answer in time"
      : code === "ESERVFAIL"
        ? "server failure"
        : code === "EREFUSED"
          ? "query refused"
          : code || "lookup failed";
  return { state: "no_answer", reason };
}

const bare = (name: string) => name.toLowerCase().replace(/\.$/, "");

export async function checkRecords(newLookup: () => DnsLookup, expected: ExpectedRecords, deadlineMs = DNS_DEADLINE_MS): Promise<DnsCheck> {
  const dns = newLookup();
  const cname = dns.resolveCname(expected.hostname).then((values): RecordState => {
    if (values.some((v) => bare(v) === expected.cnameTarget)) return { state: "ok" };
    return values.length === 0 ? { state: "missing" } : { state: "wrong", found: bare(values[0] as string) };
  }, failure);
  const txt = dns.resolveTxt(expected.txtName).then((records): RecordState => {
    // A long TXT value arrives in chunks of 255 bytes: joined, as DNS providers display it.
    const values = records.map((chunks) => chunks.join(""));
    if (values.includes(expected.txtValue)) return { state: "ok" };
    return values.length === 0 ? { state: "missing" } : { state: "wrong", found: values.join(", ").slice(0, 300) };
  }, failure);
  // Whatever the resolver does, the answer comes within the deadline: then the queries are cancelled.
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deadlineMs);
  });
  try {
    await Promise.race([Promise.all([cname, txt]), deadline]);
  } finally {
    clearTimeout(timer);
    dns.cancel();
  }
  return { cname: await cname, txt: await txt };
}

/** What the owner must fix, in words; null when both records are right. */
export function nextAction(check: DnsCheck, e: ExpectedRecords): string | null {
  const steps: string[] = [];
  const c = check.cname;
  if (c.state === "missing") steps.push(`No CNAME record found for ${e.hostname}: add a CNAME record ${e.hostname} -> ${e.cnameTarget}.`);
  else if (c.state === "wrong") steps.push(`The CNAME record of ${e.hostname} points to ${c.found}: change it to ${e.cnameTarget}.`);
  else if (c.state === "no_answer")
    steps.push(`DNS is not answering for ${e.hostname} (${c.reason}): check that the domain's name servers work, then verify again.`);
  const t = check.txt;
  if (t.state === "missing") steps.push(`No TXT record found at ${e.txtName}: add a TXT record ${e.txtName} with the value ${e.txtValue}.`);
  else if (t.state === "wrong") steps.push(`The TXT record at ${e.txtName} holds "${t.found}": set it to ${e.txtValue}.`);
  else if (t.state === "no_answer" && c.state !== "no_answer")
    steps.push(`DNS is not answering for ${e.txtName} (${t.reason}): check the domain's name servers, then verify again.`);
  return steps.length ? steps.join(" ") : null;
}
