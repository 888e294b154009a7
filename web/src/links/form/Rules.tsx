// The link form's redirect rules: an ordered list (the first rule that holds decides), each with its
// conditions and destination; conditions are added one kind at a time so a rule shows only what it uses.
import { useEffect, useState } from "react";
import { Field, FieldMessage } from "../../shared/ui";
import { formApi } from "./form-api";
import { COND_KINDS, COND_LABELS, fieldOf, newCondition, newRule, ruleError, type CondDraft, type CondKind, type QueryPair, type RuleDraft } from "./targeting";
import { MAX_RULES } from "@contract/tables";

function QueryPairs({ id, pairs, disabled, onChange }: { id: string; pairs: QueryPair[]; disabled: boolean; onChange: (pairs: QueryPair[]) => void }) {
  const setPair = (i: number, p: Partial<QueryPair>) => onChange(pairs.map((x, j) => (j === i ? { ...x, ...p } : x)));
  return (
    <div className="lf-pairs">
      {pairs.map((p, i) => (
        <div className="lf-pair" key={i}>
          <input
            id={i === 0 ? id : undefined}
            type="text"
            aria-label="Parameter name"
            data-testid={`${id}-name-${i}`}
            placeholder="name"
            value={p.name}
            disabled={disabled}
            onChange={(e) => setPair(i, { name: e.target.value })}
          />
          <span aria-hidden="true">=</span>
          <input
            type="text"
            aria-label="Parameter value"
            data-testid={`${id}-value-${i}`}
            placeholder="value or *"
            value={p.value}
            disabled={disabled}
            onChange={(e) => setPair(i, { value: e.target.value })}
          />
          {pairs.length > 1 ? (
            <button
              type="button"
              className="btn-link lf-x"
              aria-label="Remove this parameter"
              disabled={disabled}
              onClick={() => onChange(pairs.filter((_, j) => j !== i))}
            >
              ✕
            </button>
          ) : null}
        </div>
      ))}
      <button
        type="button"
        className="btn-link small"
        disabled={disabled}
        data-testid={`${id}-add`}
        onClick={() => onChange([...pairs, { name: "", value: "" }])}
      >
        + Another parameter
      </button>
    </div>
  );
}

/** A condition's input, drawn from its kind's field description (contract/conditions/): one renderer per input kind. */
function ConditionInput({ id, c, disabled, onChange }: { id: string; c: CondDraft; disabled: boolean; onChange: (c: CondDraft) => void }) {
  const field = fieldOf(c.kind);
  if (field.input === "choices")
    return (
      <div className="lf-devices" role="group" aria-label={field.groupLabel}>
        {field.options.map((o) => (
          <label key={o.value} className="checkbox">
            <input
              type="checkbox"
              data-testid={`${id}-${o.value}`}
              disabled={disabled}
              checked={c.choices.includes(o.value)}
              onChange={(e) => onChange({ ...c, choices: e.target.checked ? [...c.choices, o.value] : c.choices.filter((x) => x !== o.value) })}
            />
            {o.label}
          </label>
        ))}
      </div>
    );
  if (field.input === "pairs") return <QueryPairs id={id} pairs={c.pairs} disabled={disabled} onChange={(pairs) => onChange({ ...c, pairs })} />;
  if (field.input === "datetime")
    return <input id={id} data-testid={id} type="datetime-local" disabled={disabled} value={c.at} onChange={(e) => onChange({ ...c, at: e.target.value })} />;
  return (
    <input
      id={id}
      data-testid={id}
      type="text"
      autoCapitalize={field.upper ? "characters" : "off"}
      autoCorrect="off"
      spellCheck={false}
      placeholder={field.placeholder}
      disabled={disabled}
      value={c.text}
      onChange={(e) => onChange({ ...c, text: e.target.value })}
    />
  );
}

/** Beside a condition on the country when this server cannot tell countries: it would never hold. */
function CountryWarning({ testId }: { testId: string }) {
  const [none, setNone] = useState(false);
  useEffect(() => {
    let live = true;
    formApi.countrySource().then(
      (source) => live && setNone(source === null),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  if (!none) return null;
  return (
    <p className="field-warning small" role="note" data-testid={testId}>
      This server cannot tell visitors’ countries, so this condition never holds: its operator can set GEOIP_DB or, behind a proxy that adds a country header,
      TRUST_PROXY and COUNTRY_HEADER.
    </p>
  );
}

interface RuleCardProps {
  rule: RuleDraft;
  index: number;
  count: number;
  errors: Record<string, string>;
  disabled: boolean;
  onChange: (r: RuleDraft) => void;
  onMove: (to: number) => void;
  onRemove: () => void;
}

/** A rule's title with its tools: move it up or down the list, remove it. */
function RuleHead({ index: i, count, disabled, onMove, onRemove }: Pick<RuleCardProps, "index" | "count" | "disabled" | "onMove" | "onRemove">) {
  const base = `rule-${i}`;
  return (
    <div className="lf-rule-head">
      <h3>Rule {i + 1}</h3>
      <div className="lf-rule-tools">
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          aria-label={`Move rule ${i + 1} up`}
          data-testid={`${base}-up`}
          disabled={disabled || i === 0}
          onClick={() => onMove(i - 1)}
        >
          ↑
        </button>
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          aria-label={`Move rule ${i + 1} down`}
          data-testid={`${base}-down`}
          disabled={disabled || i === count - 1}
          onClick={() => onMove(i + 1)}
        >
          ↓
        </button>
        <button type="button" className="btn btn-secondary btn-sm" data-testid={`${base}-remove`} onClick={onRemove}>
          Remove
        </button>
      </div>
    </div>
  );
}

function RuleCard({ rule, index: i, count, errors, disabled, onChange, onMove, onRemove }: RuleCardProps) {
  const base = `rule-${i}`;
  const unused = COND_KINDS.filter((k) => !rule.when.some((c) => c.kind === k));
  const setCond = (k: CondKind, c: CondDraft | null) =>
    onChange({ ...rule, when: c ? rule.when.map((x) => (x.kind === k ? c : x)) : rule.when.filter((x) => x.kind !== k) });
  const general = ruleError(errors, i);
  return (
    <li className="lf-rule card-inset" data-testid={base}>
      <RuleHead index={i} count={count} disabled={disabled} onMove={onMove} onRemove={onRemove} />
      <p className="muted small lf-rule-when">When every condition holds (values in one field are alternatives):</p>
      {rule.when.map((c) => (
        <div className="lf-cond" key={c.kind} data-testid={`${base}-cond-${c.kind}`}>
          <Field id={`${base}-${c.kind}`} label={COND_LABELS[c.kind]} error={errors[`rules[${i}].if.${c.kind}`]} hint={fieldOf(c.kind).hint}>
            <ConditionInput id={`${base}-${c.kind}`} c={c} disabled={disabled} onChange={(next) => setCond(c.kind, next)} />
          </Field>
          {fieldOf(c.kind).needsCountrySource ? <CountryWarning testId={`${base}-${c.kind}-warning`} /> : null}
          <button
            type="button"
            className="btn-link lf-x"
            aria-label={`Remove the ${COND_LABELS[c.kind].toLowerCase()} condition`}
            data-testid={`${base}-cond-${c.kind}-remove`}
            disabled={disabled}
            onClick={() => setCond(c.kind, null)}
          >
            ✕
          </button>
        </div>
      ))}
      {unused.length ? (
        <select
          className="lf-add-cond"
          aria-label={`Add a condition to rule ${i + 1}`}
          data-testid={`${base}-add-cond`}
          disabled={disabled}
          value=""
          onChange={(e) => e.target.value && onChange({ ...rule, when: [...rule.when, newCondition(e.target.value as CondKind)] })}
        >
          <option value="">+ Add a condition…</option>
          {unused.map((k) => (
            <option key={k} value={k}>
              {COND_LABELS[k]}
            </option>
          ))}
        </select>
      ) : null}
      <FieldMessage error={general} testId={`${base}-error`} />
      <Field id={`${base}-url`} label="Then send the visitor to" error={errors[`rules[${i}].url`]}>
        <input
          id={`${base}-url`}
          data-testid={`${base}-url`}
          type="url"
          inputMode="url"
          placeholder="https://example.com/fr"
          disabled={disabled}
          value={rule.url}
          onChange={(e) => onChange({ ...rule, url: e.target.value })}
        />
      </Field>
    </li>
  );
}

export function RulesSection({
  rules,
  errors,
  allowed,
  onChange,
}: {
  rules: RuleDraft[];
  errors: Record<string, string>;
  allowed: boolean;
  onChange: (r: RuleDraft[]) => void;
}) {
  // Without the plan, existing rules (a downgraded account's) can still be removed, not edited.
  const move = (from: number, to: number) => {
    const next = [...rules];
    const [r] = next.splice(from, 1);
    if (r) next.splice(to, 0, r);
    onChange(next);
  };
  return (
    <div className="lf-rules" data-testid="rules-section">
      <p className="field-hint">
        Checked in order: the first rule whose conditions all hold sends the visitor to its URL; otherwise the split or the destination above decides.
      </p>
      <FieldMessage error={errors.rules} testId="rules-error" />
      {rules.length ? (
        <ol className="lf-rule-list">
          {rules.map((r, i) => (
            <RuleCard
              key={r.key}
              rule={r}
              index={i}
              count={rules.length}
              errors={errors}
              disabled={!allowed}
              onChange={(next) => onChange(rules.map((x) => (x.key === r.key ? next : x)))}
              onMove={(to) => move(i, to)}
              onRemove={() => onChange(rules.filter((x) => x.key !== r.key))}
            />
          ))}
        </ol>
      ) : null}
      <div className="lf-section-foot">
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          data-testid="rule-add"
          disabled={!allowed || rules.length >= MAX_RULES}
          onClick={() => onChange([...rules, newRule()])}
        >
          + Add a rule
        </button>
        <span className="muted small" data-testid="rules-count">
          {rules.length} of {MAX_RULES} rules
        </span>
      </div>
    </div>
  );
}
