// A tag as a small coloured chip (its palette colour, drawn for light and dark in tags.css), and a row of them.
import type { Tag } from "@contract/tags";
import "./tags.css";

export function TagChip({ tag, testId = "tag-chip" }: { tag: Pick<Tag, "name" | "color">; testId?: string }) {
  return (
    <span className="tag-chip" data-color={tag.color} data-testid={testId}>
      {tag.name}
    </span>
  );
}

/** A colour dot for a tag in a menu or a list of choices. */
export function TagDot({ color }: { color: Tag["color"] }) {
  return <span className="tag-dot" data-color={color} aria-hidden="true" />;
}

export function TagList({ tags }: { tags: Pick<Tag, "id" | "name" | "color">[] }) {
  if (tags.length === 0) return null;
  return (
    <ul className="tag-list" aria-label="Tags" data-testid="link-tags">
      {tags.map((t) => (
        <li key={t.id}>
          <TagChip tag={t} />
        </li>
      ))}
    </ul>
  );
}
