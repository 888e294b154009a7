// The link form's description of a link: title, private note and tags (the owner's, with their colours).
import type { TagListItem } from "@contract/tags";
import { MAX_LINK_NOTE, MAX_TAGS_PER_LINK } from "../../../../src/contract/form-rules";
import { Field } from "../../shared/ui";
import { TagInput } from "./TagInput";
import type { OptionProps } from "./Options";

export function DetailFields({ values, errors, set, knownTags, tagsError }: OptionProps & { knownTags: TagListItem[] | null; tagsError: string | null }) {
  const noteLeft = MAX_LINK_NOTE - [...values.note].length;
  return (
    <>
      <Field id="link-title" label="Title (optional)" error={errors.title} hint="Shown in your list and search instead of the destination.">
        <input
          id="link-title"
          data-testid="link-title"
          type="text"
          placeholder="Spring campaign landing page"
          value={values.title}
          onChange={(e) => set("title", e.target.value)}
        />
      </Field>
      <Field
        id="link-note"
        label="Note (optional)"
        className="lf-note"
        error={errors.note}
        hint={noteLeft < 100 ? `${Math.max(0, noteLeft)} characters left` : "Private: only you and your team see it."}
      >
        <textarea
          id="link-note"
          data-testid="link-note"
          rows={3}
          placeholder="What this link is for, who asked for it…"
          value={values.note}
          onChange={(e) => set("note", e.target.value)}
        />
      </Field>
      <Field
        id="link-tags"
        label="Tags (optional)"
        error={errors.tags}
        hint={
          tagsError
            ? `Your tags could not be loaded (${tagsError}); typed names still work.`
            : values.tags.length >= MAX_TAGS_PER_LINK
              ? `A link has at most ${MAX_TAGS_PER_LINK} tags.`
              : "Type to pick one of your tags; Enter or a comma adds a new one."
        }
      >
        <TagInput id="link-tags" names={values.tags} known={knownTags} invalid={!!errors.tags} onChange={(names) => set("tags", names)} />
      </Field>
    </>
  );
}
