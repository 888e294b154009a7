// An address that may break after its slashes and dots on a narrow screen, before it breaks mid-word.
import { Fragment } from "react";

export function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=[.?&])|(?<=\/)(?!\/)/);
  return (
    <>
      {parts.map((p, i) => (
        <Fragment key={i}>
          {p}
          {i < parts.length - 1 ? <wbr /> : null}
        </Fragment>
      ))}
    </>
  );
}
