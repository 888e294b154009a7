// A small software authenticator for API tests of passkeys: an ES256 key from node:crypto, "none" attestation,
// discoverable credentials; it answers the options of /api/auth/passkeys/*/options the way a browser would
// hand an authenticator's answer to the server (the JSON of @simplewebauthn/browser).
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";

/** Just enough CBOR (RFC 8949) for attestation objects and COSE keys: maps, texts, byte strings, integers. */
function cbor(value: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string") return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (value instanceof Map) {
    const parts = [head(5, value.size)];
    for (const [k, v] of value) parts.push(cbor(k), cbor(v));
    return Buffer.concat(parts);
  }
  throw new Error(`cbor: unsupported ${typeof value}`);
}

const b64u = (b: Buffer | string) => Buffer.from(b).toString("base64url");
const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest();

export interface SoftCredential {
  id: string;
  userHandle: string;
  privateKey: KeyObject;
  counter: number;
  rpId: string;
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  constructor(readonly origin: string) {}

  /** Answers creation options (the `options` of register/options) and keeps the new credential. */
  register(options: { challenge: string; rp: { id: string }; user: { id: string } }, opts: { origin?: string; challenge?: string } = {}) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const cose = cbor(
      new Map<number, unknown>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, "base64url")],
        [-3, Buffer.from(jwk.y!, "base64url")],
      ]),
    );
    const credId = randomBytes(16);
    const counter = 1;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    const idLen = Buffer.from([0, credId.length]);
    // Flags: user present, user verified, attested credential data.
    const authData = Buffer.concat([sha256(options.rp.id), Buffer.from([0x01 | 0x04 | 0x40]), count, Buffer.alloc(16), idLen, credId, cose]);
    const clientData = JSON.stringify({
      type: "webauthn.create",
      challenge: opts.challenge ?? options.challenge,
      origin: opts.origin ?? this.origin,
      crossOrigin: false,
    });
    const attestation = cbor(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    const cred: SoftCredential = { id: b64u(credId), userHandle: options.user.id, privateKey, counter, rpId: options.rp.id };
    this.credentials.push(cred);
    return {
      id: cred.id,
      rawId: cred.id,
      type: "public-key" as const,
      clientExtensionResults: {},
      authenticatorAttachment: "platform" as const,
      response: { clientDataJSON: b64u(clientData), attestationObject: b64u(attestation), transports: ["internal"] },
    };
  }

  /** Answers request options with `cred` (the first one made by default); the counter goes up unless `counter` is given. */
  assert(options: { challenge: string }, opts: { cred?: SoftCredential; counter?: number; origin?: string } = {}) {
    const cred = opts.cred ?? this.credentials[0];
    if (!cred) throw new Error("no credential");
    cred.counter = opts.counter ?? cred.counter + 1;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(cred.counter);
    const authData = Buffer.concat([sha256(cred.rpId), Buffer.from([0x01 | 0x04]), count]);
    const clientData = JSON.stringify({ type: "webauthn.get", challenge: options.challenge, origin: opts.origin ?? this.origin, crossOrigin: false });
    const signature = sign("sha256", Buffer.concat([authData, sha256(clientData)]), cred.privateKey);
    return {
      id: cred.id,
      rawId: cred.id,
      type: "public-key" as const,
      clientExtensionResults: {},
      response: { clientDataJSON: b64u(clientData), authenticatorData: b64u(authData), signature: b64u(signature), userHandle: cred.userHandle },
    };
  }
}
