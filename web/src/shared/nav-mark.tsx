// The plan mark of a page's navigation entry, for any other way to the same page (the links page's "Bulk create"):
// one source (nav.ts's capabilities), so a button never offers plainly what the sidebar marks locked.
import { capabilityOf } from "./nav";
import { PlanMark } from "./plan-gate";

export function NavMark({ to, testId }: { to: string; testId: string }) {
  const capability = capabilityOf(to);
  return capability ? <PlanMark capability={capability} testId={testId} /> : null;
}
