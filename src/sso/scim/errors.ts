// SCIM's own errors (RFC 7644 3.12): a status, a scimType where the RFC names one, and a detail for people.
export type ScimType = "invalidFilter" | "invalidSyntax" | "invalidPath" | "invalidValue" | "uniqueness" | "mutability" | "tooMany" | "noTarget";

export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly scimType: ScimType | null,
    detail: string,
  ) {
    super(detail);
  }
}

export const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";

export const invalidValue = (detail: string) => new ScimError(400, "invalidValue", detail);
export const invalidSyntax = (detail: string) => new ScimError(400, "invalidSyntax", detail);
export const invalidPath = (detail: string) => new ScimError(400, "invalidPath", detail);
export const notFound = (what: string) => new ScimError(404, null, `${what} not found`);
