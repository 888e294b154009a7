// Passkeys (docs/passkeys.md): the account's WebAuthn credentials, and the JSON of the registration and
// sign-in ceremonies as @simplewebauthn/browser sends and receives it (base64url strings, bounded).
import { Type, type Static } from "typebox";
import { Body, StringEnum } from "./common.js";

export const PasskeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  created_at: Type.String(),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
  transports: Type.Array(Type.String(), { description: "How the browser reaches the authenticator: internal, hybrid, usb, nfc, ble" }),
  synced: Type.Boolean({ description: "The passkey is backed up by its provider (a synced, multi-device passkey)" }),
});
export type Passkey = Static<typeof PasskeySchema>;

export const PasskeyReply = Type.Object({ status: Type.Literal("success"), passkey: PasskeySchema });
export type PasskeyReply = Static<typeof PasskeyReply>;
export const PasskeyListReply = Type.Object({ status: Type.Literal("success"), passkeys: Type.Array(PasskeySchema) });
export type PasskeyListReply = Static<typeof PasskeyListReply>;

/** base64url (padding tolerated); the default only serves tests that build a valid body (typebox/value Create). */
const B64 = (maxLength: number) => Type.String({ maxLength, pattern: "^[A-Za-z0-9_-]*={0,2}$", default: "" });
const Transports = Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10 });
const Attachment = Type.Optional(StringEnum(["platform", "cross-platform"] as const, "Where the authenticator is"));
/** What a browser puts there (credProps, prf...): an object, kept small by the body limit; the server reads none. */
const ExtensionResults = Type.Object({}, { additionalProperties: true });

/** navigator.credentials.create()'s answer as JSON (startRegistration of @simplewebauthn/browser). */
export const RegistrationResponseSchema = Type.Object(
  {
    id: B64(1400),
    rawId: B64(1400),
    type: Type.Literal("public-key"),
    authenticatorAttachment: Attachment,
    clientExtensionResults: ExtensionResults,
    response: Type.Object(
      {
        clientDataJSON: B64(8192),
        attestationObject: B64(65536),
        authenticatorData: Type.Optional(B64(65536)),
        transports: Type.Optional(Transports),
        publicKeyAlgorithm: Type.Optional(Type.Integer()),
        publicKey: Type.Optional(B64(8192)),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** navigator.credentials.get()'s answer as JSON (startAuthentication of @simplewebauthn/browser). */
export const AuthenticationResponseSchema = Type.Object(
  {
    id: B64(1400),
    rawId: B64(1400),
    type: Type.Literal("public-key"),
    authenticatorAttachment: Attachment,
    clientExtensionResults: ExtensionResults,
    response: Type.Object(
      {
        clientDataJSON: B64(8192),
        authenticatorData: B64(65536),
        signature: B64(8192),
        userHandle: Type.Optional(B64(512)),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type AuthenticationResponse = Static<typeof AuthenticationResponseSchema>;

export const PasskeyName = Type.String({ minLength: 1, maxLength: 64 });
export const RegisterVerifyBody = Body({ response: RegistrationResponseSchema, name: Type.Optional(PasskeyName) });
export type RegisterVerifyBody = Static<typeof RegisterVerifyBody>;
export const LoginVerifyBody = Body({ response: AuthenticationResponseSchema });
export const RenamePasskeyBody = Body({ name: PasskeyName });
export const RemovePasskeyBody = Body({ password: Type.String({ maxLength: 1000 }) });

const Descriptor = Type.Object({ id: Type.String(), type: Type.Literal("public-key"), transports: Type.Optional(Type.Array(Type.String())) });

/** PublicKeyCredentialCreationOptionsJSON: hand it to startRegistration({ optionsJSON }). */
export const CreationOptionsSchema = Type.Object(
  {
    challenge: Type.String(),
    rp: Type.Object({ name: Type.String(), id: Type.String() }),
    user: Type.Object({ id: Type.String(), name: Type.String(), displayName: Type.String() }),
    pubKeyCredParams: Type.Array(Type.Object({ type: Type.Literal("public-key"), alg: Type.Integer() })),
    timeout: Type.Integer(),
    attestation: Type.String(),
    excludeCredentials: Type.Array(Descriptor),
    authenticatorSelection: Type.Object({
      residentKey: Type.String(),
      requireResidentKey: Type.Boolean(),
      userVerification: Type.String(),
    }),
    extensions: Type.Object({ credProps: Type.Boolean() }),
    hints: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);

/** PublicKeyCredentialRequestOptionsJSON: hand it to startAuthentication({ optionsJSON }). */
export const RequestOptionsSchema = Type.Object(
  {
    challenge: Type.String(),
    rpId: Type.String(),
    timeout: Type.Integer(),
    userVerification: Type.String(),
    allowCredentials: Type.Array(Descriptor),
  },
  { additionalProperties: false },
);

export type CreationOptions = Static<typeof CreationOptionsSchema>;
export type RequestOptions = Static<typeof RequestOptionsSchema>;

export const CreationOptionsReply = Type.Object({ status: Type.Literal("success"), options: CreationOptionsSchema });
export type CreationOptionsReply = Static<typeof CreationOptionsReply>;
export const RequestOptionsReply = Type.Object({ status: Type.Literal("success"), options: RequestOptionsSchema });
export type RequestOptionsReply = Static<typeof RequestOptionsReply>;
