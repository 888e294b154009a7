// The link builder's options, one row each. An option the plan lacks is not offered (the builder's one plan
// note lists it); it shows, locked, only on a link that already has it, so its value can still be removed.
import type { Link } from "@contract/links";
import type { TagListItem } from "@contract/tags";
import { planName, requiredPlan, type Capability } from "../../shared/plan-gate";
import { DetailFields } from "./Details";
import { AppOptions } from "./AppOptions";
import { DeviceOptions, LimitOptions, ProtectionOptions, type OptionProps } from "./Options";
import { DeliveryOptions } from "./Delivery";
import { PreviewOptions } from "./Preview";
import { RulesSection } from "./Rules";
import { SplitSection } from "./Split";
import { SplitGoalFields, TrackConversions } from "./Conversions";
import { UtmBuilder } from "./Utm";
import { OptionRow, optionHasValue, type OptionKey, type useOpenOptions } from "./option-rows";
import type { Allowed } from "./values";

/** The owner's tags, with the edited link's own (a tag created by the last save is not in the list read before). */
function withLinkTags(list: TagListItem[] | null, link: Link | null): TagListItem[] | null {
  if (!list || !link) return list;
  const missing = link.tags.filter((t) => !list.some((k) => k.id === t.id)).map((t) => ({ ...t, link_count: 1 }));
  return missing.length ? [...list, ...missing] : list;
}

export interface BuilderOptionsProps extends OptionProps {
  allowed: Allowed;
  startAllowed: boolean;
  original: Link | null;
  copiedFrom: Link | null;
  options: ReturnType<typeof useOpenOptions>;
  owner: string | null;
  ready: boolean;
  canDeleteTemplates: boolean;
  tags: { list: TagListItem[] | null; error: string | null };
  host: string;
  shortUrl: string;
}

/** The capability an option needs when the plan lacks it, else null. */
function lockOf(key: OptionKey, allowed: Allowed): Capability | null {
  if (key === "limits" && !allowed.limits) return "link_expiration";
  if (key === "preview" && !allowed.preview) return "link_preview";
  if ((key === "rules" || key === "split") && !allowed.targeting) return "link_targeting";
  if (key === "conversions" && !allowed.conversions) return "conversions";
  return null;
}

export function BuilderOptions(props: BuilderOptionsProps) {
  const { values, errors, set, allowed, original, options } = props;
  const row = (key: OptionKey, body: React.ReactNode, toggleTestId?: string) => {
    const has = optionHasValue(key, values, !!original?.has_password);
    const lock = lockOf(key, allowed);
    // A locked option without a value is in the plan note, not here.
    if (lock && !has) return null;
    return (
      <OptionRow
        key={key}
        optionKey={key}
        open={options.open.has(key)}
        set={has}
        onToggle={() => options.toggle(key)}
        lockedPlan={lock ? planName(requiredPlan(lock)) : null}
        toggleTestId={toggleTestId}
      >
        {body}
      </OptionRow>
    );
  };
  const common = { values, errors, set };
  return (
    <div className="lf-options" data-testid="builder-options">
      {row(
        "utm",
        <UtmBuilder url={values.url} onUrl={(url) => set("url", url)} owner={props.owner} ready={props.ready} canDelete={props.canDeleteTemplates} />,
        "utm-toggle",
      )}
      {row("limits", <LimitOptions {...common} allowed={allowed} />)}
      {row("delivery", <DeliveryOptions {...common} allowed={props.startAllowed} />)}
      {row("password", <ProtectionOptions {...common} original={original} copiedFrom={props.copiedFrom} />)}
      {row(
        "devices",
        <>
          <DeviceOptions {...common} />
          <AppOptions {...common} />
        </>,
      )}
      {row("rules", <RulesSection rules={values.rules} errors={errors} allowed={allowed.targeting} onChange={(r) => set("rules", r)} />)}
      {row(
        "split",
        <>
          <SplitSection split={values.split} url={values.url} errors={errors} allowed={allowed.targeting} onChange={(s) => set("split", s)} />
          {values.split.length > 0 ? <SplitGoalFields {...common} allowed={allowed.targeting} conversions={allowed.conversions} /> : null}
        </>,
      )}
      {row("conversions", <TrackConversions {...common} allowed={allowed.conversions} />)}
      {row("preview", <PreviewOptions {...common} allowed={allowed.preview} host={props.host} shortUrl={props.shortUrl} />)}
      {row("details", <DetailFields {...common} knownTags={withLinkTags(props.tags.list, original)} tagsError={props.tags.error} owner={props.owner} />)}
    </div>
  );
}
