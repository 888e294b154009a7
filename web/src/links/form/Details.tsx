// The link form's description of a link: title, private note, tags (the owner's, with their colours) and folder.
import type { TagListItem } from "@contract/tags";
import { MAX_LINK_NOTE, MAX_TAGS_PER_LINK } from "../../../../src/contract/form-rules";
import { Field } from "../../shared/ui";
import { TagInput } from "./TagInput";
import type { OptionProps } from "./Options";
import { useFolders } from "../../shared/folders";

export function DetailFields({
  values,
  errors,
  set,
  knownTags,
  tagsError,
  owner,
}: OptionProps & { knownTags: TagListItem[] | null; tagsError: string | null; owner: string | null }) {
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
      <FolderField value={values.folder_id} error={errors.folder_id} owner={owner} onChange={(id) => set("folder_id", id)} />
    </>
  );
}

/** The owner's folders to put the link in (docs/folders.md); shown once the owner has one, or the link is in one. */
function FolderField({ value, error, owner, onChange }: { value: string; error?: string; owner: string | null; onChange: (id: string) => void }) {
  const folders = useFolders(owner);
  if (!folders || (folders.length === 0 && !value)) return null;
  const known = folders.some((f) => f.id === value);
  return (
    <Field id="link-folder" label="Folder (optional)" error={error} hint="Folders group links in the sidebar and filter the list.">
      <select id="link-folder" data-testid="link-folder" value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">No folder</option>
        {folders.map((f) => (
          <option key={f.id} value={f.id}>
            {f.name}
          </option>
        ))}
        {value && !known ? <option value={value}>(a folder no longer listed)</option> : null}
      </select>
    </Field>
  );
}
