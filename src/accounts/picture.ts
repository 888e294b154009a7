// Profile picture checks: the bytes must really be PNG, JPEG or WebP, whatever the name or header says.
import { DomainError } from "../shared/errors.js";
import { MAX_PICTURE_BYTES } from "../contract/tables.js";

export { MAX_PICTURE_BYTES };
export const PICTURE_TYPES = ["image/png", "image/jpeg", "image/webp"] as const;

export function sniffImage(data: Buffer): (typeof PICTURE_TYPES)[number] | null {
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return "image/jpeg";
  if (data.length >= 12 && data.toString("latin1", 0, 4) === "RIFF" && data.toString("latin1", 8, 12) === "WEBP") return "image/webp";
  return null;
}

export function checkPicture(data: Buffer, declaredType: string | undefined): (typeof PICTURE_TYPES)[number] {
  if (data.length === 0) throw new DomainError("invalid_request", "picture: the body is empty", [{ field: "picture", message: "is empty" }]);
  if (data.length > MAX_PICTURE_BYTES) throw new DomainError("payload_too_large", "picture: larger than 2 MiB");
  const sniffed = sniffImage(data);
  if (!sniffed) {
    throw new DomainError("invalid_request", "picture: not a PNG, JPEG or WebP image", [{ field: "picture", message: "must be a PNG, JPEG or WebP image" }]);
  }
  const declared = declaredType?.split(";")[0]?.trim().toLowerCase();
  if (declared && declared !== sniffed) {
    throw new DomainError("invalid_request", `picture: content is ${sniffed}, not ${declared}`, [
      { field: "picture", message: `content is ${sniffed}, not ${declared}` },
    ]);
  }
  return sniffed;
}
