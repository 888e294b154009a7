// Host names, paths and short links in narrow columns: a line may break after a dot, a slash, a question mark, an
// ampersand or an equals sign (<wbr>), so "mail.google.com" wraps as "mail.google." / "com", never inside a word
// ("mail.google" / ".com", "localhost:8080/sprin" / "g-lookbook"). The words stay whole; the CSS's
// overflow-wrap is left for a single piece longer than the whole column.
import { Fragment } from "react";

/** The text's pieces, each ending at a place a line may break (the last piece ends the text). */
export function breakPieces(text: string): string[] {
  return text.match(/[^./?&=]*[./?&=]+|[^./?&=]+$/g) ?? [text];
}

export function BreakAt({ text }: { text: string }) {
  const pieces = breakPieces(text);
  return (
    <>
      {pieces.map((piece, i) => (
        <Fragment key={i}>
          {piece}
          {i < pieces.length - 1 ? <wbr /> : null}
        </Fragment>
      ))}
    </>
  );
}
