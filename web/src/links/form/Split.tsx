// The link form's A/B split: 2 to 4 variants of the default destination with weights in percent that add
// up to 100 (the sum is shown as it is typed). A visitor keeps the variant first given.
import { Field, FieldMessage } from "../../shared/ui";
import { newSplit, variantLetter, weightSum, type VariantDraft } from "./targeting";
import { MAX_VARIANTS, MIN_VARIANTS } from "@contract/tables";

/** One variant of the split: its URL, its weight in percent, and its remove button while more than the minimum remain. */
function VariantRow({
  index: i,
  variant: v,
  count,
  errors,
  disabled,
  onChange,
  onRemove,
}: {
  index: number;
  variant: VariantDraft;
  count: number;
  errors: Record<string, string>;
  disabled: boolean;
  onChange: (v: Partial<VariantDraft>) => void;
  onRemove: () => void;
}) {
  return (
    <li className="lf-variant" data-testid={`variant-${i}`}>
      <Field id={`variant-${i}-url`} label={`Variant ${variantLetter(i)} URL`} error={errors[`split[${i}].url`] ?? errors[`split[${i}]`]}>
        <input
          id={`variant-${i}-url`}
          data-testid={`variant-${i}-url`}
          type="url"
          inputMode="url"
          placeholder="https://example.com/landing-b"
          disabled={disabled}
          value={v.url}
          onChange={(e) => onChange({ url: e.target.value })}
        />
      </Field>
      <Field id={`variant-${i}-weight`} label="Weight" className="lf-weight" error={errors[`split[${i}].weight`]}>
        <div className="lf-weight-input">
          <input
            id={`variant-${i}-weight`}
            data-testid={`variant-${i}-weight`}
            type="number"
            min={1}
            max={99}
            step={1}
            inputMode="numeric"
            disabled={disabled}
            value={v.weight}
            onChange={(e) => onChange({ weight: e.target.value })}
          />
          <span aria-hidden="true">%</span>
        </div>
      </Field>
      {count > MIN_VARIANTS ? (
        <button
          type="button"
          className="btn-link lf-x"
          aria-label={`Remove variant ${variantLetter(i)}`}
          data-testid={`variant-${i}-remove`}
          disabled={disabled}
          onClick={onRemove}
        >
          ✕
        </button>
      ) : null}
    </li>
  );
}

export function SplitSection(props: {
  split: VariantDraft[];
  url: string;
  errors: Record<string, string>;
  allowed: boolean;
  onChange: (s: VariantDraft[]) => void;
}) {
  const { split, errors, allowed, onChange } = props;
  const sum = weightSum(split);
  const setVariant = (i: number, v: Partial<VariantDraft>) => onChange(split.map((x, j) => (j === i ? { ...x, ...v } : x)));
  return (
    <div className="lf-split" data-testid="split-section">
      <p className="field-hint">Visitors no rule sends elsewhere are shared between the variants by weight; each keeps the variant first given for 30 days.</p>
      {split.length === 0 ? (
        <button type="button" className="btn btn-secondary btn-sm" data-testid="split-add" disabled={!allowed} onClick={() => onChange(newSplit(props.url))}>
          + Split the traffic
        </button>
      ) : (
        <>
          <ol className="lf-variants">
            {split.map((v, i) => (
              <VariantRow
                key={i}
                index={i}
                variant={v}
                count={split.length}
                errors={errors}
                disabled={!allowed}
                onChange={(next) => setVariant(i, next)}
                onRemove={() => onChange(split.filter((_, j) => j !== i))}
              />
            ))}
          </ol>
          <p className={`lf-weight-sum${sum === 100 ? " lf-weight-ok" : " lf-weight-bad"}`} role="status" data-testid="split-sum">
            {sum === 100 ? "Weights add up to 100%." : `Weights add up to ${sum}%: they must add up to 100%.`}
          </p>
          <FieldMessage error={errors.split} testId="split-error" />
          <div className="lf-section-foot">
            <button
              type="button"
              className="btn btn-secondary btn-sm"
              data-testid="variant-add"
              disabled={!allowed || split.length >= MAX_VARIANTS}
              onClick={() => onChange([...split, { url: "", weight: "" }])}
            >
              + Add a variant
            </button>
            <button type="button" className="btn btn-secondary btn-sm" data-testid="split-remove" onClick={() => onChange([])}>
              Remove the split
            </button>
          </div>
        </>
      )}
    </div>
  );
}
