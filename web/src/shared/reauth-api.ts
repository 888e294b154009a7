// The calls of "Confirm it's you" (sudo mode): the proof with the password or a passkey, and which other ways the
// dialog can offer this session (a passkey of the account, a fresh single sign-on).
import { browserSupportsWebAuthn, startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { ApiError, call, snip } from "./api";
import { waitInWords } from "./dates";

/** The ways besides the password; `ssoHref` starts a fresh single sign-on that lands back on this page. */
export interface OtherWays {
  passkey: boolean;
  ssoHref: string | null;
}

/** As `call`, with a 429's Retry-After told in the message (the throttle of wrong passwords answers one). */
async function callTellingWait<D>(pending: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  try {
    return await call(pending);
  } catch (e) {
    if (!(e instanceof ApiError) || e.httpStatus !== 429) throw e;
    const wait = waitInWords(
      await pending.then(
        (a) => a.response.headers.get("Retry-After"),
        () => null,
      ),
    );
    throw new ApiError(429, e.code, wait ? `${e.message}. Try again ${wait}.` : e.message, e.details);
  }
}

function ssoHrefFor(signedInWith: string | null | undefined, email: string | undefined): string | null {
  const back = `return_to=${encodeURIComponent(window.location.pathname + window.location.search)}`;
  if (signedInWith === "sso_instance") return `/api/auth/sso/start?instance=1&${back}`;
  if (signedInWith === "sso" && email) return `/api/auth/sso/start?email=${encodeURIComponent(email)}&${back}`;
  return null;
}

export const reauthApi = {
  withPassword: (password: string) => callTellingWait(snip.POST("/api/auth/reauth", { body: { password } })),
  /** The browser's passkey prompt for one of the account's passkeys, and its answer checked. */
  async withPasskey() {
    const { options } = await call(snip.POST("/api/auth/reauth/passkey/options"));
    const response = await startAuthentication({ optionsJSON: options as PublicKeyCredentialRequestOptionsJSON });
    return callTellingWait(snip.POST("/api/auth/reauth", { body: { response } as never }));
  },
  /** A passkey only when the browser can use one and the account has one; single sign-on only for a session it made. */
  async otherWays(): Promise<OtherWays> {
    const [session, passkeys] = await Promise.all([
      call(snip.GET("/api/auth/session")).catch(() => null),
      browserSupportsWebAuthn()
        ? call(snip.GET("/api/auth/passkeys")).then(
            (r) => r.passkeys.length,
            () => 0,
          )
        : Promise.resolve(0),
    ]);
    return { passkey: passkeys > 0, ssoHref: ssoHrefFor(session?.signed_in_with, session?.user?.email) };
  },
};
