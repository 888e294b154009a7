// The single sign-on settings (docs/sso.md, docs/configuration.md): the instance-wide provider's variables
// checked together, the client secret from a file, ENTERPRISE_MEMBERS_MAX's range, and the names in errors.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { claimHolds } from "../../src/sso/sign-in.js";

const base = () => ({ DATA_DIR: mkdtempSync(join(tmpdir(), "snip-cfg-sso-")) });
const oidc = { OIDC_ISSUER: "https://id.example.com/realms/acme", OIDC_CLIENT_ID: "snip", OIDC_CLIENT_SECRET: "s3cret" };

function refusal(env: Record<string, string>): string {
  try {
    loadConfig({ ...base(), ...env });
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("no ConfigError thrown");
}

describe("single sign-on settings", () => {
  it("is off by default, with 50 Enterprise members", () => {
    expect(loadConfig(base()).sso).toEqual({ oidc: null, enterpriseMembersMax: 50 });
  });

  it("reads the instance-wide provider, the secret also from OIDC_CLIENT_SECRET_FILE", () => {
    const c = loadConfig({
      ...base(),
      ...oidc,
      OIDC_NAME: "Acme ID",
      OIDC_OPERATOR_CLAIM: "groups",
      OIDC_OPERATOR_VALUE: "admins",
      OIDC_ONLY: "true",
      ENTERPRISE_MEMBERS_MAX: "7",
    });
    expect(c.sso.enterpriseMembersMax).toBe(7);
    expect({ ...c.sso.oidc, issuer: c.sso.oidc?.issuer.href }).toEqual({
      issuer: "https://id.example.com/realms/acme",
      clientId: "snip",
      clientSecret: "s3cret",
      name: "Acme ID",
      operatorClaim: "groups",
      operatorValue: "admins",
      only: true,
    });
    const file = join(mkdtempSync(join(tmpdir(), "snip-cfg-sso-")), "secret");
    writeFileSync(file, "from-a-file\n", { mode: 0o600 });
    const fromFile = loadConfig({ ...base(), OIDC_ISSUER: oidc.OIDC_ISSUER, OIDC_CLIENT_ID: "snip", OIDC_CLIENT_SECRET_FILE: file });
    expect(fromFile.sso.oidc?.clientSecret).toBe("from-a-file");
    expect(fromFile.sso.oidc?.name).toBe("single sign-on");
    expect(loadConfig({ ...base(), ...oidc, OIDC_ISSUER: "http://127.0.0.1:8081" }).sso.oidc?.issuer.href).toBe("http://127.0.0.1:8081/");
  });

  it("refuses what cannot work, naming the variable", () => {
    expect(refusal({ ...oidc, OIDC_ISSUER: "not a url" })).toBe('OIDC_ISSUER: "not a url" is not an absolute URL');
    expect(refusal({ ...oidc, OIDC_ISSUER: "http://id.example.com" })).toBe("OIDC_ISSUER: must start with https:// (http:// only for a provider on loopback)");
    expect(refusal({ ...oidc, OIDC_ISSUER: "https://id.example.com/?x=1" })).toBe("OIDC_ISSUER: must not carry credentials, a query or a fragment");
    expect(refusal({ OIDC_ISSUER: oidc.OIDC_ISSUER, OIDC_CLIENT_ID: "snip" })).toBe("OIDC_CLIENT_SECRET: is required with OIDC_ISSUER");
    expect(refusal({ OIDC_ISSUER: oidc.OIDC_ISSUER, OIDC_CLIENT_SECRET: "x" })).toBe("OIDC_CLIENT_ID: is required with OIDC_ISSUER");
    expect(refusal({ OIDC_CLIENT_ID: "snip" })).toBe("OIDC_CLIENT_ID: is set but OIDC_ISSUER is not");
    expect(refusal({ OIDC_ONLY: "true" })).toBe("OIDC_ONLY: needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET");
    expect(refusal({ ...oidc, OIDC_ONLY: "maybe" })).toBe('OIDC_ONLY: must be true or false, got "maybe"');
    expect(refusal({ ...oidc, OIDC_OPERATOR_CLAIM: "groups" })).toBe("OIDC_OPERATOR_VALUE: OIDC_OPERATOR_CLAIM and OIDC_OPERATOR_VALUE go together");
    expect(refusal({ ...oidc, OIDC_NAME: "x".repeat(61) })).toBe("OIDC_NAME: must be at most 60 characters without control characters");
    expect(refusal({ ENTERPRISE_MEMBERS_MAX: "0" })).toBe('ENTERPRISE_MEMBERS_MAX: must be a whole number from 1 to 100000, got "0"');
    expect(refusal({ ...oidc, OIDC_CLIENT_SECRET_FILE: "/nonexistent" })).toBe(
      "OIDC_CLIENT_SECRET: set both OIDC_CLIENT_SECRET and OIDC_CLIENT_SECRET_FILE; give only one",
    );
  });

  it("reads the operator claim as a value, a list, a space-separated string or a dotted path", () => {
    expect(claimHolds({ groups: ["a", "admins"] }, "groups", "admins")).toBe(true);
    expect(claimHolds({ groups: ["a"] }, "groups", "admins")).toBe(false);
    expect(claimHolds({ role: "admins" }, "role", "admins")).toBe(true);
    expect(claimHolds({ scope: "x admins y" }, "scope", "admins")).toBe(true);
    expect(claimHolds({ realm_access: { roles: ["admins"] } }, "realm_access.roles", "admins")).toBe(true);
    expect(claimHolds({ realm_access: { roles: ["admin"] } }, "realm_access.roles", "admins")).toBe(false);
    expect(claimHolds({}, "groups", "admins")).toBe(false);
    expect(claimHolds({ groups: "admins-x" }, "groups", "admins")).toBe(false);
  });
});
